//! What a Muse Glimmer message header says (`specs/dialects/glimmer.md` §3): its recipient, and
//! so the kind of its message; and why a header is not one (MG2.5, MG2.6).

use thiserror::Error;

use super::START;

/// Why a header gives no message. Each message starts with the fixed phrase of
/// `specs/dialects/glimmer.md` §8.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum HeaderError {
    /// A marker that cannot stand in a header broke it before `<|message|>` (MG2.5).
    #[error("malformed glimmer header: broken by {0}")]
    Malformed(&'static str),
    /// The stream ended inside it (MG2.6).
    #[error("unterminated glimmer header")]
    Unterminated,
}

/// The kind of a message, from its header's recipient (MG3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `to=self`: reasoning.
    Reasoning,
    /// `to=user`, or no recipient: the answer, text.
    Text,
    /// Any other recipient: a tool message of ATEM invokes.
    Tool,
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// The recipient of the header whose text is `header` (its `<|start|>` and its prefill part
/// included, `<|message|>` excluded): the rest of its first word that starts with `to=`, none
/// if there is no such word or it is `to=` alone (MG3.1, MG3.2).
pub(crate) fn recipient(header: &str) -> Option<&str> {
    let text = header.strip_prefix(START).unwrap_or(header);
    text.split(is_blank)
        .find_map(|word| word.strip_prefix("to="))
        .filter(|rest| !rest.is_empty())
}

/// The kind of the message whose header text is `header` (MG3.3): recipients compare byte for
/// byte, and no other word is read.
pub(crate) fn read(header: &str) -> Kind {
    match recipient(header) {
        Some("self") => Kind::Reasoning,
        Some("user") | None => Kind::Text,
        Some(_) => Kind::Tool,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recipient_is_the_first_to_word() {
        assert_eq!(
            recipient("<|start|>assistant to=GetWeather"),
            Some("GetWeather")
        );
        assert_eq!(recipient("<|start|>assistant\tto=a to=b"), Some("a"));
        assert_eq!(recipient("<|start|>to=x"), Some("x"));
        assert_eq!(recipient("<|start|>assistant"), None);
        assert_eq!(recipient("<|start|>assistant to= to=b"), None);
        assert_eq!(recipient("<|start|>assistantto=x"), None);
        assert_eq!(recipient("<|start|>assistant  to=x\n"), Some("x"));
    }

    #[test]
    fn kinds() {
        assert_eq!(read("<|start|>assistant to=self"), Kind::Reasoning);
        assert_eq!(read("<|start|>assistant to=user"), Kind::Text);
        assert_eq!(read("<|start|>assistant"), Kind::Text);
        assert_eq!(read("<|start|>assistant to="), Kind::Text);
        assert_eq!(read("<|start|>assistant to=Self"), Kind::Tool);
        assert_eq!(read("<|start|>assistant to=USER"), Kind::Tool);
        assert_eq!(read("<|start|>assistant to=self.x"), Kind::Tool);
        assert_eq!(
            read("<|start|>assistant to=GetWeather.GetWeather"),
            Kind::Tool
        );
        // The role word is not read.
        assert_eq!(read("<|start|>tool to=self"), Kind::Reasoning);
    }
}
