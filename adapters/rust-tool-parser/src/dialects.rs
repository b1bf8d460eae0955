//! Which deployment serves each tch dialect: the model id the request names, from which the
//! gateway resolves its tool parser (`tool_parser::ParserFactory`'s model mappings) and its
//! reasoning parser (`reasoning_parser::ParserFactory`'s patterns), as it does when no
//! `--tool-call-parser` / `--reasoning-parser` is configured. The README's mapping table is
//! this one; `tests::resolution` pins what each model id resolves to.

/// One dialect's deployment.
pub struct Dialect {
    /// tch's dialect name.
    pub name: &'static str,
    /// The request's `model`: picks both parsers and the tool-call id format.
    pub model: &'static str,
    /// The reasoning block's opener and closer, to tell whether a prefill leaves the stream
    /// inside reasoning (the template injected the opener: the gateway's thinking override).
    pub think: (&'static str, &'static str),
    /// Tool names the dialect's corpus calls (`toolName` in `corpus/DIALECT/*.events.jsonl`),
    /// declared besides the `begin` tools (see README: "Which tools the request declares").
    pub corpus_tools: &'static [&'static str],
}

const THINK: (&str, &str) = ("<think>", "</think>");

pub const DIALECTS: &[Dialect] = &[
    Dialect {
        name: "hermes",
        model: "Qwen/Qwen3-8B",
        think: THINK,
        corpus_tools: &[
            "BookRestaurant",
            "GetWeather",
            "a",
            "create_event",
            "deep",
            "echo",
            "f",
            "g",
            "get_time",
            "get_weather",
            "list_files",
            "read_file",
            "set_role",
            "天気",
        ],
    },
    Dialect {
        name: "qwen3-coder",
        model: "Qwen/Qwen3-Coder-30B-A3B-Instruct",
        think: THINK,
        corpus_tools: &[
            "BookRestaurant",
            "GetWeather",
            "add_random_item_to_shop",
            "book_appointment",
            "read_file",
            "run_shell",
            "search_files",
            "write_file",
        ],
    },
    Dialect {
        name: "deepseek-v3",
        model: "deepseek-ai/DeepSeek-V3-0324",
        think: THINK,
        corpus_tools: &[
            "BookRestaurant",
            "GetWeather",
            "add_random_item_to_shop",
            "book_appointment",
            "deep",
            "get_current_time",
            "read_file",
            "search_files",
            "send_message",
            "set_role",
        ],
    },
    Dialect {
        name: "deepseek-v3.1",
        model: "deepseek-ai/DeepSeek-V3.1",
        think: THINK,
        corpus_tools: &[
            "GetWeather",
            "add_random_item_to_shop",
            "bar",
            "foo",
            "read_file",
            "search_files",
            "send_message",
            "set_role",
        ],
    },
    Dialect {
        name: "deepseek-v3.2",
        model: "deepseek-ai/DeepSeek-V3.2",
        think: THINK,
        corpus_tools: &[
            "GetWeather",
            "add_random_item_to_shop",
            "get_weather",
            "read_file",
            "run_shell",
            "save_note",
            "search_files",
        ],
    },
    Dialect {
        name: "deepseek-v4",
        model: "deepseek-ai/DeepSeek-V4-Flash",
        think: THINK,
        corpus_tools: &[
            "BookRestaurant",
            "GetWeather",
            "add_random_item_to_shop",
            "book_appointment",
            "read_file",
            "run_shell",
            "search_files",
        ],
    },
    Dialect {
        name: "deepseek-v4.1",
        model: "deepseek-ai/DeepSeek-V4.1",
        think: THINK,
        corpus_tools: &[
            "GetWeather",
            "add",
            "add_random_item_to_shop",
            "get_weather",
            "read_file",
            "run_shell",
            "save_note",
            "search_files",
        ],
    },
    Dialect {
        name: "kimi-k2",
        model: "moonshotai/Kimi-K2.5",
        think: THINK,
        corpus_tools: &[
            "GetWeather",
            "add_random_item_to_shop",
            "fs.read",
            "get-weather",
            "launch_rocket",
            "list_directory",
            "read_file",
            "search_files",
        ],
    },
    Dialect {
        name: "kimi-k3",
        model: "moonshotai/Kimi-K3",
        think: ("<|open|>think<|sep|>", "<|close|>think<|sep|>"),
        corpus_tools: &[
            "GetWeather",
            "a&b",
            "add_random_item_to_shop",
            "launch_rocket",
            "read_file",
            "search_files",
        ],
    },
];

pub fn find(name: &str) -> Option<&'static Dialect> {
    DIALECTS.iter().find(|dialect| dialect.name == name)
}

impl Dialect {
    /// Whether `prefill` leaves the stream inside reasoning: its last reasoning opener comes
    /// after its last closer. That is a template that injected the opener into the generation
    /// prompt, which the gateway tells its reasoning parser with `mark_reasoning_started` and
    /// `mark_think_start_stripped` (`should_mark_reasoning_started` and `think_in_prefill`).
    pub fn prefill_opens_reasoning(&self, prefill: &str) -> bool {
        let (open, close) = self.think;
        match (prefill.rfind(open), prefill.rfind(close)) {
            (Some(opened), Some(closed)) => opened > closed,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the gateway's factories resolve each model id to (no parser configured):
    /// `tool_parser::ParserFactory::registry().resolve_model_to_parser` and the reasoning
    /// factory's pattern list (`create_for_model(..).model_type()`).
    #[test]
    fn resolution() {
        let tools = tool_parser::ParserFactory::new();
        let reasoning = reasoning_parser::ParserFactory::new();
        let resolved: Vec<(&str, Option<String>, Option<String>)> = DIALECTS
            .iter()
            .map(|d| {
                (
                    d.name,
                    tools.registry().resolve_model_to_parser(d.model),
                    reasoning
                        .registry()
                        .create_for_model(d.model)
                        .map(|p| p.model_type().to_owned()),
                )
            })
            .collect();
        let expected: Vec<(&str, Option<String>, Option<String>)> = [
            ("hermes", "qwen", Some("qwen3")),
            ("qwen3-coder", "qwen_xml", Some("qwen3")),
            ("deepseek-v3", "deepseek", None),
            ("deepseek-v3.1", "deepseek31", Some("deepseek_v31")),
            ("deepseek-v3.2", "deepseek32", None),
            ("deepseek-v4", "deepseek_v4", Some("deepseek_v4")),
            ("deepseek-v4.1", "deepseek_v41", Some("deepseek_v41")),
            ("kimi-k2", "kimik2", Some("kimi_k25")),
            ("kimi-k3", "kimi_k3", Some("kimi_k3")),
        ]
        .into_iter()
        .map(|(d, t, r)| (d, Some(t.to_owned()), r.map(str::to_owned)))
        .collect();
        assert_eq!(resolved, expected);
    }

    #[test]
    fn prefill_reasoning_state() {
        let Some(hermes) = find("hermes") else {
            panic!("hermes is mapped")
        };
        assert!(hermes.prefill_opens_reasoning("<|im_start|>assistant\n<think>"));
        assert!(hermes.prefill_opens_reasoning("<think>a</think>b<think>\n"));
        assert!(!hermes.prefill_opens_reasoning("<|im_start|>assistant\n<think>\n\n</think>"));
        assert!(!hermes.prefill_opens_reasoning("<|im_start|>assistant\n<thi"));
        assert!(!hermes.prefill_opens_reasoning(""));
        let Some(k3) = find("kimi-k3") else {
            panic!("kimi-k3 is mapped")
        };
        assert!(k3.prefill_opens_reasoning(
            "<|open|>message role=\"assistant\"<|sep|><|open|>think<|sep|>"
        ));
        assert!(!k3.prefill_opens_reasoning(
            "<|open|>message role=\"assistant\"<|sep|><|open|>response<|sep|>"
        ));
    }
}
