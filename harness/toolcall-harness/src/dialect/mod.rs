//! The reference dialects and their names: one module per dialect, each a [`StreamParser`]
//! that is right by construction, with its eagerness oracle (`may_hold`), and its
//! [`Descriptor`], everything the rest of `tch` needs to know about it.

mod apertus;
mod cohere;
mod deepseek;
mod descriptor;
mod dsml;
mod functiongemma;
mod gemma4;
mod gigachat3;
mod glimmer;
mod glm;
mod granite;
mod harmony;
pub mod hermes;
mod hunyuan;
mod internlm2;
mod jamba;
mod json;
mod json_call;
mod kimi_k2;
mod kimi_k3;
mod kit;
mod llama3_json;
mod longcat;
pub mod md_fence;
mod minimax_m2;
mod minimax_m3;
mod mistral;
mod olmo3;
mod output;
mod phi4_mini;
mod poolside;
mod pythonic;
mod qwen3_coder;
mod scan;
mod seed_oss;
pub mod signature;
mod step3;
pub mod tag;
mod typed;
mod xlam;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use thiserror::Error;

pub use descriptor::{CallAround, Descriptor, Values};

use crate::event::Event;
use crate::parser::StreamParser;
use crate::tools::Registry;
use descriptor::Parser;

/// Declares the dialects: the enum, its list in the order `tch` lists them, and each one's
/// descriptor. A dialect is added by one line here (after its `mod`).
macro_rules! dialects {
    ($($(#[doc = $doc:literal])* $variant:ident => $descriptor:path,)*) => {
        /// A tool-call syntax `tch` has a reference parser for.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Dialect {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Dialect {
            /// Every dialect, in the order `tch` lists them.
            pub const ALL: &'static [Dialect] = &[$(Dialect::$variant,)*];

            /// Everything the dialect declares about itself.
            pub fn descriptor(self) -> &'static Descriptor {
                match self {
                    $(Dialect::$variant => &$descriptor,)*
                }
            }
        }
    };
}

dialects! {
    /// Markdown `tool` fences with a YAML body (seed 000).
    MdFence => md_fence::DIALECT,
    /// `<ToolName>{json}</ToolName>` for registry tools, schema-validated (seed 004).
    Tag => tag::DIALECT,
    /// `###: {"signature": "CLIENT_TOOL_CALL", …}` (seed 001).
    Signature => signature::DIALECT,
    /// `<tool_call>{"name": …, "arguments": …}</tool_call>` (Hermes, Qwen), `<think>`.
    Hermes => hermes::DIALECT,
    /// Qwen3-Coder's XML: `<tool_call><function=NAME><parameter=KEY>VALUE</parameter>…`.
    Qwen3Coder => qwen3_coder::DIALECT,
    /// gpt-oss's Harmony messages: `<|channel|>analysis<|message|>…`, calls to `functions.NAME`.
    Harmony => harmony::DIALECT,
    /// DeepSeek V3: `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` and a fenced JSON body.
    DeepSeekV3 => deepseek::V3_DIALECT,
    /// DeepSeek V3.1: `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}`.
    DeepSeekV31 => deepseek::V31_DIALECT,
    /// DeepSeek V3.2's DSML: `<｜DSML｜function_calls>` and `invoke` elements.
    DeepSeekV32 => dsml::V32_DIALECT,
    /// DeepSeek V4's DSML form.
    DeepSeekV4 => dsml::V4_DIALECT,
    /// DeepSeek V4.1's DSML form.
    DeepSeekV41 => dsml::V41_DIALECT,
    /// Kimi K2: `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}`.
    KimiK2 => kimi_k2::DIALECT,
    /// Kimi K3's tools section.
    KimiK3 => kimi_k3::DIALECT,
    /// GLM-4.5 and GLM-4.6: `<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>…`.
    Glm45 => glm::GLM45_DIALECT,
    /// GLM-4.7 and GLM-5: GLM-4.5's calls without the newlines.
    Glm47 => glm::GLM47_DIALECT,
    /// Gemma 4: `<|tool_call>call:NAME{key:<|"|>text<|"|>}<tool_call|>`, its thought channel.
    Gemma4 => gemma4::DIALECT,
    /// Mistral: `[TOOL_CALLS] [{…}]` (v3 tokenizer) and `[TOOL_CALLS]NAME[ARGS]{…}` (v11+).
    Mistral => mistral::DIALECT,
    /// Llama 3.x JSON calls: a reply that is `{"name": …, "parameters": …}`.
    Llama3Json => llama3_json::DIALECT,
    /// Python-call lists: `[get_weather(city="Paris")]` (Llama 4; LFM2 in its markers).
    Pythonic => pythonic::DIALECT,
    /// MiniMax-M2: `<minimax:tool_call>` around `<invoke name="…">` elements.
    MinimaxM2 => minimax_m2::DIALECT,
    /// Cohere Command: `<|START_ACTION|>[{"tool_call_id": …, "tool_name": …, "parameters": …}]<|END_ACTION|>`.
    Cohere => cohere::DIALECT,
    /// FunctionGemma: `<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>`.
    FunctionGemma => functiongemma::DIALECT,
    /// Hunyuan-A13B: `<answer>\n<tool_calls>[{"name": …, "arguments": {…}}]</tool_calls>\n</answer>`.
    Hunyuan => hunyuan::DIALECT,
    /// StepFun Step3: `<｜tool_calls_begin｜>` sections of `function<｜tool_sep｜><steptml:invoke …>`.
    Step3 => step3::DIALECT,
    /// GigaChat 3 and 3.1: `<|message_sep|>\n\nfunction call<|role_sep|>\n{…}`, `<|function_call|>{…}`.
    GigaChat3 => gigachat3::DIALECT,
    /// ByteDance Seed-OSS: `<seed:tool_call><function=NAME><parameter=KEY>VALUE</parameter>…`.
    SeedOss => seed_oss::DIALECT,
    /// Muse Glimmer: `<|start|>assistant to=NAME<|message|>` messages, ATEM `<atem:invoke>` calls.
    Glimmer => glimmer::DIALECT,
    /// MiniMax-M3: `]<]minimax[>[<tool_call>` around `<invoke name="…">` calls whose
    /// arguments are elements named by their keys, every tag after the namespace token.
    MinimaxM3 => minimax_m3::DIALECT,
    /// Olmo 3: `<function_calls>get_weather(city="Paris")\nget_time()</function_calls>`, `<think>`.
    Olmo3 => olmo3::DIALECT,
    /// poolside Laguna: GLM-4.7's calls (with or without line breaks), Laguna's prompts.
    Poolside => poolside::DIALECT,
    /// LongCat-Flash: `<longcat_tool_call>{"name": …, "arguments": …}</longcat_tool_call>`.
    Longcat => longcat::DIALECT,
    /// AI21 Jamba: `<tool_calls>[{"name": …, "arguments": {…}}]</tool_calls>`.
    Jamba => jamba::DIALECT,
    /// Phi-4-mini: `functools[{"name": …, "arguments": {…}}]`, no closing marker.
    Phi4Mini => phi4_mini::DIALECT,
    /// IBM Granite 3.x: `<|tool_call|>[{"name": …, "arguments": {…}}]`, 3.3's `<think>`/`<response>`.
    Granite => granite::DIALECT,
    /// InternLM2 and Intern-S1: `<|action_start|><|plugin|>\n{"name": …, "parameters": {…}}<|action_end|>`.
    Internlm2 => internlm2::DIALECT,
    /// Apertus: `<|tools_prefix|>[{"NAME": {…}}]<|tools_suffix|>`, `<|inner_prefix|>` reasoning.
    Apertus => apertus::DIALECT,
    /// Salesforce xLAM-2: a reply that is `[{"name": …, "arguments": {…}}, …]`, bare or fenced.
    Xlam => xlam::DIALECT,
}

impl Dialect {
    /// The name used on the command line, in the protocol and as the corpus folder.
    pub fn name(self) -> &'static str {
        self.descriptor().name
    }

    /// Whether the reference may still hold back `held` (the input it has not released) after
    /// a push: the dialect's eagerness rule (`specs/streaming.md` C3), as an oracle written
    /// independently of the parser. `prefill` is the context before `held` when `held` starts
    /// at the stream's first byte, else `""`.
    pub fn may_hold(self, held: &str, prefill: &str, tools: &Registry) -> bool {
        match self.descriptor().parser {
            Parser::Kit(grammar) => kit::eager::may_hold(grammar, held, prefill),
            Parser::Own(own) => (own.may_hold)(held, tools),
        }
    }

    /// The dialect's markers: the literals a real stream carries as special tokens or fixed
    /// syntax, which a realistic splitting never cuts (`specs/runner.md` R1.4). For `tag`,
    /// the registry's tool tags.
    pub fn markers(self, tools: &Registry) -> Vec<String> {
        match self.descriptor().parser {
            Parser::Kit(grammar) => grammar.literals().iter().map(|m| (*m).to_owned()).collect(),
            Parser::Own(own) => (own.markers)(tools),
        }
    }

    /// The generation prompt the dialect's chat template ends the prompt with by default, as
    /// far as it puts the reply in a state (`specs/streaming.md` C9.4): the prefill used when
    /// none is given (a corpus case without `.prefill`, `tch parse` without `--prefill`, a
    /// `begin` without `prefill`). `""` when the template leaves the reply at its start. Each
    /// dialect's spec names it, and the other variants a family has.
    pub fn default_prefill(self) -> &'static str {
        self.descriptor().default_prefill
    }

    /// A fresh reference parser for this dialect, having read `prefill`, the generation prompt
    /// the stream continues (`specs/streaming.md` C9; `""` for none); `tools` is the registry
    /// in use.
    pub fn reference_parser(self, tools: &Arc<Registry>, prefill: &str) -> Box<dyn StreamParser> {
        let mut parser: Box<dyn StreamParser> = match self.descriptor().parser {
            Parser::Kit(grammar) => Box::new(kit::KitParser::new(grammar, Arc::clone(tools))),
            Parser::Own(own) => (own.new)(Arc::clone(tools)),
        };
        if !prefill.is_empty() {
            parser.prefill(prefill);
        }
        parser
    }

    /// Whether a call must stand first in a reply: prose before it makes the whole reply prose
    /// (`xlam`). Streams built for a dialect (the scaling streams) put calls first then.
    pub fn calls_come_first(self) -> bool {
        match self.descriptor().parser {
            Parser::Kit(grammar) => grammar.prose_is_final(),
            Parser::Own(_) => false,
        }
    }

    /// Whether the reply after `prefill` starts inside reasoning (`specs/streaming.md` C9): what
    /// the reference reads its first byte as.
    pub fn starts_in_reasoning(self, tools: &Arc<Registry>, prefill: &str) -> bool {
        let mut parser = self.reference_parser(tools, prefill);
        let mut events = Vec::new();
        parser.push("x", &mut events);
        parser.finish(&mut events);
        matches!(events.first(), Some(Event::ReasoningDelta { .. }))
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dialect name `tch` does not know.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown dialect \"{name}\" (known: {known})")]
pub struct UnknownDialect {
    /// The name as given.
    pub name: String,
    /// The known names, comma-separated.
    pub known: String,
}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(name: &str) -> Result<Dialect, UnknownDialect> {
        Dialect::ALL
            .iter()
            .copied()
            .find(|d| d.name() == name)
            .ok_or_else(|| UnknownDialect {
                name: name.to_owned(),
                known: Dialect::ALL
                    .iter()
                    .map(|d| d.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_grammar_is_sound() {
        for &dialect in Dialect::ALL {
            if let Parser::Kit(grammar) = dialect.descriptor().parser {
                let problems = kit::check::problems(grammar);
                assert!(problems.is_empty(), "{dialect}: {problems:#?}");
            }
        }
    }

    #[test]
    fn descriptors_name_their_dialects_once() {
        for (i, &dialect) in Dialect::ALL.iter().enumerate() {
            assert_eq!(dialect.name().parse::<Dialect>(), Ok(dialect));
            assert!(!dialect.descriptor().models.is_empty(), "{dialect}");
            assert!(
                Dialect::ALL[..i].iter().all(|d| d.name() != dialect.name()),
                "{dialect} is listed twice"
            );
        }
    }
}
