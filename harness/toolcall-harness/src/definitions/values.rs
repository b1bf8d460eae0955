//! Key items (`- **Key**: value`) and the coercion of their values (`specs/definitions.md` §3,
//! D5.3): key comparison, booleans, comma lists, names and types.

use super::contract::JsonType;
use super::error::{Located, Problem};
use super::outline::Item;

/// One `Key: value` item of a section, a parameter or an `Items` list.
#[derive(Debug, Clone, Copy)]
pub(super) struct KeyItem<'a> {
    /// As written (errors quote it so).
    pub key: &'a str,
    pub value: &'a str,
    pub line: usize,
    pub children: &'a [Item],
    /// The section errors about this item name.
    pub section: &'a str,
}

/// The known keys of a place in the format, by spelling in the spec.
pub(super) type KeyTable<K> = [(&'static str, K)];

/// Keys compare lowercased without spaces, `_` and `-` (D3.2).
pub(super) fn same_key(a: &str, b: &str) -> bool {
    let normalized = |key: &str| {
        key.chars()
            .filter(|c| !matches!(c, ' ' | '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect::<String>()
    };
    normalized(a) == normalized(b)
}

pub(super) fn lookup<K: Copy>(table: &KeyTable<K>, key: &str) -> Option<K> {
    table
        .iter()
        .find(|(known, _)| same_key(known, key))
        .map(|&(_, id)| id)
}

/// `unknown key`, listing the keys `table` knows (D4.1, D5.2).
pub(super) fn unknown_key<K>(table: &KeyTable<K>, key: &str) -> Problem {
    let expected = table
        .iter()
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(", ");
    Problem::UnknownKey {
        key: key.to_owned(),
        expected,
    }
}

/// The key items of `items`, in order; the same key twice is refused (D3.3).
pub(super) fn key_items<'a>(
    items: impl IntoIterator<Item = &'a Item>,
    section: &'a str,
) -> Result<Vec<KeyItem<'a>>, Located> {
    let mut keyed: Vec<KeyItem<'a>> = Vec::new();
    for item in items {
        let (key, value) =
            split_key(item).ok_or_else(|| Located::new(item.line, section, malformed(item)))?;
        if keyed.iter().any(|earlier| same_key(earlier.key, key)) {
            return Err(Located::new(
                item.line,
                section,
                Problem::DuplicateKey(key.to_owned()),
            ));
        }
        keyed.push(KeyItem {
            key,
            value,
            line: item.line,
            children: &item.children,
            section,
        });
    }
    Ok(keyed)
}

fn malformed(item: &Item) -> Problem {
    Problem::MalformedItem(item.text.trim().to_owned())
}

/// D3.1: the strong lead is the key; else the text before the first `:`.
fn split_key(item: &Item) -> Option<(&str, &str)> {
    let (key, rest) = match item.strong_lead_end {
        Some(end) => {
            let (key, rest) = item.text.split_at_checked(end)?;
            (key.trim().trim_end_matches(':'), rest.trim_start())
        }
        None => {
            let (key, rest) = item.text.split_once(':')?;
            (key, rest)
        }
    };
    let key = key.trim();
    let value = rest.strip_prefix(':').unwrap_or(rest).trim();
    (!key.is_empty()).then_some((key, value))
}

impl<'a> KeyItem<'a> {
    pub(super) fn fail(&self, problem: Problem) -> Located {
        Located::new(self.line, self.section, problem)
    }

    /// A single value: non-empty, without a nested list (D3.4).
    pub(super) fn scalar(&self) -> Result<&'a str, Located> {
        if !self.children.is_empty() {
            return Err(self.fail(Problem::NestedList(self.key.to_owned())));
        }
        if self.value.is_empty() {
            return Err(self.fail(Problem::EmptyValue(self.key.to_owned())));
        }
        Ok(self.value)
    }

    /// `true` or `false`, in any case (D3.5).
    pub(super) fn boolean(&self) -> Result<bool, Located> {
        let value = self.scalar()?;
        if value.eq_ignore_ascii_case("true") {
            Ok(true)
        } else if value.eq_ignore_ascii_case("false") {
            Ok(false)
        } else {
            Err(self.fail(Problem::InvalidBoolean {
                key: self.key.to_owned(),
                value: value.to_owned(),
            }))
        }
    }

    /// Comma-separated entries, then nested items' texts (D3.6).
    pub(super) fn list(&self) -> Result<Vec<String>, Located> {
        let entries: Vec<String> = self
            .value
            .split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .map(str::to_owned)
            .chain(self.children.iter().map(Item::full_text))
            .filter(|entry| !entry.is_empty())
            .collect();
        if entries.is_empty() {
            return Err(self.fail(Problem::EmptyValue(self.key.to_owned())));
        }
        Ok(entries)
    }

    /// A tool or skill name (D3.7).
    pub(super) fn name(&self) -> Result<String, Located> {
        let name = self.scalar()?;
        check_name(name).map_err(|problem| self.fail(problem))?;
        Ok(name.to_owned())
    }

    /// A list of names (`Required Tools`, `Required Skills`).
    pub(super) fn names(&self) -> Result<Vec<String>, Located> {
        let names = self.list()?;
        for name in &names {
            check_name(name).map_err(|problem| self.fail(problem))?;
        }
        Ok(names)
    }

    /// A type with its optional label (D5.3).
    pub(super) fn json_type(&self) -> Result<(JsonType, Option<String>), Located> {
        parse_type(self.scalar()?).map_err(|problem| self.fail(problem))
    }
}

fn check_name(name: &str) -> Result<(), Problem> {
    let valid = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if valid {
        Ok(())
    } else {
        Err(Problem::InvalidName(name.to_owned()))
    }
}

/// `TYPE` or `TYPE (Label)`, the type in any case (D5.3).
pub(super) fn parse_type(text: &str) -> Result<(JsonType, Option<String>), Problem> {
    let text = text.trim();
    let (word, label) = match text.split_once('(') {
        Some((word, rest)) => match rest.strip_suffix(')') {
            Some(label) => (word.trim(), Some(label.trim())),
            None => (text, None),
        },
        None => (text, None),
    };
    let json_type = JsonType::from_name(word).ok_or_else(|| Problem::UnknownType(text.into()))?;
    let title = label.filter(|label| !label.is_empty()).map(str::to_owned);
    Ok((json_type, title))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::definitions::outline::{Block, outline};

    fn items(markdown: &str) -> Vec<Item> {
        match outline(markdown).unwrap().as_slice() {
            [Block::List(items)] => items.clone(),
            other => panic!("{other:?}"),
        }
    }

    fn pairs(markdown: &str) -> Vec<(String, String)> {
        let items = items(markdown);
        key_items(&items, "S")
            .unwrap()
            .iter()
            .map(|k| (k.key.to_owned(), k.value.to_owned()))
            .collect()
    }

    #[test]
    fn keys_in_every_style() {
        let expected = |key: &str, value: &str| vec![(key.to_owned(), value.to_owned())];
        assert_eq!(pairs("- **Type**: string\n"), expected("Type", "string"));
        assert_eq!(pairs("* __Type__: string\n"), expected("Type", "string"));
        assert_eq!(pairs("+ **Type:** string\n"), expected("Type", "string"));
        assert_eq!(pairs("- **Type** string\n"), expected("Type", "string"));
        assert_eq!(pairs("- Type: a: b\n"), expected("Type", "a: b"));
        assert_eq!(pairs("- **Items**:\n  - x\n"), expected("Items", ""));
    }

    #[test]
    fn refuses_malformed_and_duplicate_items() {
        let malformed = items("- just text\n");
        assert_eq!(
            key_items(&malformed, "S").unwrap_err().problem,
            Problem::MalformedItem("just text".into())
        );
        let empty_key = items("- : x\n");
        assert!(key_items(&empty_key, "S").is_err());
        let twice = items("- **Requires Auth**: true\n- requires_auth: false\n");
        let error = key_items(&twice, "S").unwrap_err();
        assert_eq!(
            (error.line, error.problem),
            (2, Problem::DuplicateKey("requires_auth".into()))
        );
    }

    #[test]
    fn keys_compare_without_case_spaces_underscores_or_dashes() {
        for spelling in [
            "Requires Auth",
            "requires_auth",
            "REQUIRES-AUTH",
            "RequiresAuth",
        ] {
            assert!(same_key("Requires Auth", spelling), "{spelling}");
        }
        assert!(!same_key("Requires Auth", "Requires"));
    }

    fn key(value: &'static str, children: &'static [Item]) -> KeyItem<'static> {
        KeyItem {
            key: "K",
            value,
            line: 7,
            children,
            section: "S",
        }
    }

    #[test]
    fn coerces_booleans_lists_and_names() {
        assert!(key("TRUE", &[]).boolean().unwrap());
        assert!(!key("false", &[]).boolean().unwrap());
        assert!(matches!(
            key("yes", &[]).boolean().unwrap_err().problem,
            Problem::InvalidBoolean { .. }
        ));
        assert_eq!(key(" a, b ,, c,", &[]).list().unwrap(), ["a", "b", "c"]);
        assert_eq!(
            key(",", &[]).list().unwrap_err().problem,
            Problem::EmptyValue("K".into())
        );
        assert_eq!(
            key("book_appointment", &[]).name().unwrap(),
            "book_appointment"
        );
        assert!(key("book appointment", &[]).name().is_err());
        assert!(key("x".repeat(65).leak(), &[]).name().is_err());
    }

    #[test]
    fn types_take_any_case_and_an_optional_label() {
        assert_eq!(parse_type("String"), Ok((JsonType::String, None)));
        assert_eq!(
            parse_type("object (SkillResult)"),
            Ok((JsonType::Object, Some("SkillResult".into())))
        );
        assert_eq!(parse_type("integer ()"), Ok((JsonType::Integer, None)));
        for bad in ["strng", "string | number", "int", "", "object (x"] {
            assert_eq!(parse_type(bad), Err(Problem::UnknownType(bad.into())));
        }
    }
}
