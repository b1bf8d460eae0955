//! Which deployment serves each tch dialect: the model id the request names, from which the
//! gateway resolves its tool parser (`tool_parser::ParserFactory`'s model mappings) and its
//! reasoning parser (`reasoning_parser::ParserFactory`'s patterns), as it does when no
//! `--tool-call-parser` / `--reasoning-parser` is configured; and, where the deployment names
//! one because the model id resolves to none (GLM), the configured `--reasoning-parser`. The
//! README's mapping table is this one; `tests::resolution` pins what each dialect resolves to.

/// One dialect's deployment.
pub struct Dialect {
    /// tch's dialect name.
    pub name: &'static str,
    /// The request's `model`: picks both parsers and the tool-call id format.
    pub model: &'static str,
    /// The gateway's configured `--reasoning-parser` (`None`: resolved from `model`, as for
    /// every dialect but GLM's; see README "The deployments").
    pub reasoning_parser: Option<&'static str>,
    /// The reasoning block's opener and closer, to tell whether a prefill leaves the stream
    /// inside reasoning (the template injected the opener: the gateway's thinking override).
    pub think: (&'static str, &'static str),
}

const THINK: (&str, &str) = ("<think>", "</think>");

/// Every dialect served, with its deployment (README "The deployments").
pub const DIALECTS: &[Dialect] = &[
    Dialect {
        name: "hermes",
        model: "Qwen/Qwen3-8B",
        reasoning_parser: None,
        think: THINK,
    },
    Dialect {
        name: "qwen3-coder",
        model: "Qwen/Qwen3-Coder-30B-A3B-Instruct",
        reasoning_parser: None,
        think: THINK,
    },
    Dialect {
        name: "deepseek-v3",
        model: "deepseek-ai/DeepSeek-V3-0324",
        reasoning_parser: None,
        think: THINK,
    },
    Dialect {
        name: "deepseek-v3.1",
        model: "deepseek-ai/DeepSeek-V3.1",
        reasoning_parser: None,
        think: THINK,
    },
    Dialect {
        name: "deepseek-v3.2",
        model: "deepseek-ai/DeepSeek-V3.2",
        reasoning_parser: None,
        think: THINK,
    },
    Dialect {
        name: "deepseek-v4",
        model: "deepseek-ai/DeepSeek-V4-Flash",
        reasoning_parser: None,
        think: THINK,
    },
    Dialect {
        name: "deepseek-v4.1",
        model: "deepseek-ai/DeepSeek-V4.1",
        reasoning_parser: None,
        think: THINK,
    },
    Dialect {
        name: "kimi-k2",
        model: "moonshotai/Kimi-K2.5",
        reasoning_parser: None,
        think: THINK,
    },
    Dialect {
        name: "kimi-k3",
        model: "moonshotai/Kimi-K3",
        reasoning_parser: None,
        think: ("<|open|>think<|sep|>", "<|close|>think<|sep|>"),
    },
    Dialect {
        name: "glm-4.5",
        model: "zai-org/GLM-4.5",
        // No reasoning pattern matches a GLM-4.5 id (the factory's are `glm45`, `glm47`,
        // `glm-5`): the deployment configures `--reasoning-parser glm45`.
        reasoning_parser: Some("glm45"),
        think: THINK,
    },
    Dialect {
        name: "glm-4.7",
        model: "zai-org/GLM-4.7",
        reasoning_parser: Some("glm45"),
        think: THINK,
    },
    Dialect {
        name: "gemma4",
        model: "google/gemma-4-31B-it",
        reasoning_parser: None,
        think: ("<|channel>thought\n", "<channel|>"),
    },
    Dialect {
        name: "mistral",
        model: "mistralai/Mistral-7B-Instruct-v0.3",
        reasoning_parser: None,
        think: ("[THINK]", "[/THINK]"),
    },
    Dialect {
        name: "minimax-m2",
        model: "MiniMaxAI/MiniMax-M2",
        reasoning_parser: None,
        think: THINK,
    },
    Dialect {
        name: "cohere",
        model: "CohereLabs/c4ai-command-a-03-2025",
        reasoning_parser: None,
        think: ("<|START_THINKING|>", "<|END_THINKING|>"),
    },
    Dialect {
        name: "step3",
        model: "stepfun-ai/step3",
        reasoning_parser: None,
        think: THINK,
    },
    Dialect {
        name: "minimax-m3",
        model: "MiniMaxAI/MiniMax-M3",
        reasoning_parser: None,
        think: ("<mm:think>", "</mm:think>"),
    },
];

/// The deployment of the tch dialect `name`, if one serves it.
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

    /// What the gateway's factories resolve each dialect to: the tool parser by model id
    /// (`tool_parser::ParserFactory::registry().resolve_model_to_parser`, no parser configured)
    /// and the reasoning parser as `utils::create_reasoning_parser` picks it, the configured
    /// name or else the factory's pattern list (`model_type()` of the parser it creates).
    #[test]
    fn resolution() {
        let tools = tool_parser::ParserFactory::new();
        let reasoning = reasoning_parser::ParserFactory::new();
        let resolved: Vec<(&str, Option<String>, Option<String>)> = DIALECTS
            .iter()
            .map(|d| {
                let parser = match d.reasoning_parser {
                    Some(name) => reasoning.registry().create_parser(name),
                    None => reasoning.registry().create_for_model(d.model),
                };
                (
                    d.name,
                    tools.registry().resolve_model_to_parser(d.model),
                    parser.map(|p| p.model_type().to_owned()),
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
            ("glm-4.5", "glm45_moe", Some("glm45")),
            ("glm-4.7", "glm47_moe", Some("glm45")),
            ("gemma4", "gemma4", Some("gemma4")),
            ("mistral", "mistral", None),
            ("minimax-m2", "minimax_m2", Some("minimax")),
            ("cohere", "cohere", Some("cohere_cmd")),
            ("step3", "step3", Some("step3")),
            ("minimax-m3", "minimax_m3", Some("minimax_m3")),
        ]
        .into_iter()
        .map(|(d, t, r)| (d, Some(t.to_owned()), r.map(str::to_owned)))
        .collect();
        assert_eq!(resolved, expected);
    }

    /// The GLM ids resolve to no reasoning parser by themselves: that is why their deployment
    /// configures one (README "The deployments").
    #[test]
    fn glm_ids_need_a_configured_reasoning_parser() {
        let reasoning = reasoning_parser::ParserFactory::new();
        for d in DIALECTS.iter().filter(|d| d.reasoning_parser.is_some()) {
            assert!(
                !reasoning.registry().has_parser_for_model(d.model),
                "{} resolves by itself",
                d.model
            );
        }
        assert!(reasoning.registry().has_parser_for_model("zai-org/GLM-5"));
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
        let Some(gemma) = find("gemma4") else {
            panic!("gemma4 is mapped")
        };
        assert!(gemma.prefill_opens_reasoning("<|turn>model\n<|channel>thought\n"));
        assert!(!gemma.prefill_opens_reasoning("<|turn>model\n<|channel>thought\n<channel|>"));
        assert!(!gemma.prefill_opens_reasoning("<|turn>model\n"));
        let Some(cohere) = find("cohere") else {
            panic!("cohere is mapped")
        };
        assert!(cohere
            .prefill_opens_reasoning("<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|><|START_THINKING|>"));
        assert!(!cohere.prefill_opens_reasoning(
            "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|><|START_THINKING|><|END_THINKING|>"
        ));
        assert!(!cohere.prefill_opens_reasoning("<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"));
        let Some(m3) = find("minimax-m3") else {
            panic!("minimax-m3 is mapped")
        };
        assert!(m3.prefill_opens_reasoning("]~b]ai\n<mm:think>"));
        assert!(!m3.prefill_opens_reasoning("]~b]ai\n</mm:think>"));
        assert!(!m3.prefill_opens_reasoning("]~b]ai\n"));
    }
}
