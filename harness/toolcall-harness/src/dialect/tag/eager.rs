//! The eagerness oracle for `tag` (`specs/dialects/tag.md` §5), written as plain string rules
//! independent of the parser's state machine: what the parser may still hold back after a
//! push.

use crate::tools::Registry;

/// Whether `held`, the input the parser has not released yet, is something
/// `specs/dialects/tag.md` §5 allows it to hold, for some registry name NAME: nothing; `<` and
/// a prefix of `NAME>` (T5.1); `<NAME>` and blanks (T5.2); or `<NAME>`, blanks, `{` or `` ` ``
/// and anything without `</NAME>`, a started call waiting for its closer (T5.3).
pub fn may_hold(held: &str, tools: &Registry) -> bool {
    held.is_empty()
        || tools
            .tools()
            .iter()
            .any(|tool| may_hold_for(held, &tool.name))
}

fn may_hold_for(held: &str, name: &str) -> bool {
    let Some(after_lt) = held.strip_prefix('<') else {
        return false;
    };
    let opener_rest = format!("{name}>");
    if opener_rest.starts_with(after_lt) {
        return true;
    }
    let Some(after_opener) = after_lt.strip_prefix(opener_rest.as_str()) else {
        return false;
    };
    let call = after_opener.trim_start_matches([' ', '\t', '\r', '\n']);
    call.is_empty()
        || (call.starts_with(['{', '`']) && !after_opener.contains(&format!("</{name}>")))
}

#[cfg(test)]
mod tests {
    use super::may_hold;
    use crate::dialect::tag::tests::seed_registry;

    #[test]
    fn opener_prefixes_and_openers_may_be_held() {
        let tools = seed_registry();
        for held in [
            "",
            "<",
            "<G",
            "<GetWeath",
            "<GetWeather",
            "<GetWeather>",
            "<BookRestaurant>",
            "<GetWeather> \r\n\t",
        ] {
            assert!(may_hold(held, &tools), "{held:?}");
        }
    }

    #[test]
    fn started_calls_may_be_held_until_their_closer() {
        let tools = seed_registry();
        for held in [
            "<GetWeather>{",
            "<GetWeather>\n```json\n{\"location\": \"Paris\"}\n```\n</GetWeath",
            "<GetWeather>`` oops",
            "<GetWeather> {\"a\": \"</BookRestaurant>\"}",
            "<BookRestaurant>{}</GetWeather>",
        ] {
            assert!(may_hold(held, &tools), "{held:?}");
        }
    }

    #[test]
    fn text_may_not_be_held() {
        let tools = seed_registry();
        for held in [
            "a",
            " <GetWeather>",
            "<g",
            "<GetWeatherX",
            "<Foo>",
            "</GetWeather>",
            "<GetWeather attr=\"x\">",
            "<GetWeather>x",
            "<GetWeather> <",
            "<GetWeather>{}</GetWeather>",
            "<GetWeather>{}</GetWeather>x",
            "<GetWeather>\n`</GetWeather>",
            "<Get\u{e9}",
        ] {
            assert!(!may_hold(held, &tools), "{held:?}");
        }
    }

    #[test]
    fn an_empty_registry_holds_nothing() {
        let tools = crate::tools::Registry::default();
        assert!(may_hold("", &tools));
        assert!(!may_hold("<", &tools));
    }
}
