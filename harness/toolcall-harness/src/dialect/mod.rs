//! The reference dialects and their names: one module per dialect, each a [`StreamParser`]
//! that is right by construction, with its eagerness oracle (`may_hold`).

mod deepseek;
mod dsml;
mod gemma4;
mod glm;
mod harmony;
pub mod hermes;
mod json;
mod kimi_k2;
mod kimi_k3;
mod kit;
mod llama3_json;
pub mod md_fence;
mod minimax_m2;
mod mistral;
mod output;
mod pythonic;
mod qwen3_coder;
mod scan;
pub mod signature;
pub mod tag;
mod typed;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use thiserror::Error;

use crate::parser::StreamParser;
use crate::tools::Registry;

/// A tool-call syntax `tch` has a reference parser for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    /// Markdown `tool` fences with a YAML body (seed 000).
    MdFence,
    /// `<ToolName>{json}</ToolName>` for registry tools, schema-validated (seed 004).
    Tag,
    /// `###: {"signature": "CLIENT_TOOL_CALL", …}` (seed 001).
    Signature,
    /// `<tool_call>{"name": …, "arguments": …}</tool_call>` (Hermes, Qwen), `<think>`.
    Hermes,
    /// Qwen3-Coder's XML: `<tool_call><function=NAME><parameter=KEY>VALUE</parameter>…`.
    Qwen3Coder,
    /// gpt-oss's Harmony messages: `<|channel|>analysis<|message|>…`, calls to `functions.NAME`.
    Harmony,
    /// DeepSeek V3: `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` and a fenced JSON body.
    DeepSeekV3,
    /// DeepSeek V3.1: `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}`.
    DeepSeekV31,
    /// DeepSeek V3.2's DSML: `<｜DSML｜function_calls>` and `invoke` elements.
    DeepSeekV32,
    /// DeepSeek V4's DSML form.
    DeepSeekV4,
    /// DeepSeek V4.1's DSML form.
    DeepSeekV41,
    /// Kimi K2: `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}`.
    KimiK2,
    /// Kimi K3's tools section.
    KimiK3,
    /// GLM-4.5 and GLM-4.6: `<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>…`.
    Glm45,
    /// GLM-4.7 and GLM-5: GLM-4.5's calls without the newlines.
    Glm47,
    /// Gemma 4: `<|tool_call>call:NAME{key:<|"|>text<|"|>}<tool_call|>`, its thought channel.
    Gemma4,
    /// Mistral: `[TOOL_CALLS] [{…}]` (v3 tokenizer) and `[TOOL_CALLS]NAME[ARGS]{…}` (v11+).
    Mistral,
    /// Llama 3.x JSON calls: a reply that is `{"name": …, "parameters": …}`.
    Llama3Json,
    /// Python-call lists: `[get_weather(city="Paris")]` (Llama 4; LFM2 in its markers).
    Pythonic,
    /// MiniMax-M2: `<minimax:tool_call>` around `<invoke name="…">` elements.
    MinimaxM2,
}

impl Dialect {
    /// Every dialect, in the order `tch` lists them.
    pub const ALL: &'static [Dialect] = &[
        Dialect::MdFence,
        Dialect::Tag,
        Dialect::Signature,
        Dialect::Hermes,
        Dialect::Qwen3Coder,
        Dialect::Harmony,
        Dialect::DeepSeekV3,
        Dialect::DeepSeekV31,
        Dialect::DeepSeekV32,
        Dialect::DeepSeekV4,
        Dialect::DeepSeekV41,
        Dialect::KimiK2,
        Dialect::KimiK3,
        Dialect::Glm45,
        Dialect::Glm47,
        Dialect::Gemma4,
        Dialect::Mistral,
        Dialect::Llama3Json,
        Dialect::Pythonic,
        Dialect::MinimaxM2,
    ];

    /// The name used on the command line, in the protocol and as the corpus folder.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::MdFence => "md-fence",
            Dialect::Tag => "tag",
            Dialect::Signature => "signature",
            Dialect::Hermes => "hermes",
            Dialect::Qwen3Coder => "qwen3-coder",
            Dialect::Harmony => "harmony",
            Dialect::DeepSeekV3 => "deepseek-v3",
            Dialect::DeepSeekV31 => "deepseek-v3.1",
            Dialect::DeepSeekV32 => "deepseek-v3.2",
            Dialect::DeepSeekV4 => "deepseek-v4",
            Dialect::DeepSeekV41 => "deepseek-v4.1",
            Dialect::KimiK2 => "kimi-k2",
            Dialect::KimiK3 => "kimi-k3",
            Dialect::Glm45 => "glm-4.5",
            Dialect::Glm47 => "glm-4.7",
            Dialect::Gemma4 => "gemma4",
            Dialect::Mistral => "mistral",
            Dialect::Llama3Json => "llama3-json",
            Dialect::Pythonic => "pythonic",
            Dialect::MinimaxM2 => "minimax-m2",
        }
    }

    /// Whether the reference may still hold back `held` (the input it has not released) after
    /// a push: the dialect's eagerness rule (`specs/streaming.md` C3), as an oracle written
    /// independently of the parser. `prefill` is the context before `held` when `held` starts
    /// at the stream's first byte, else `""`.
    pub fn may_hold(self, held: &str, prefill: &str, tools: &Registry) -> bool {
        match self {
            Dialect::MdFence => md_fence::may_hold(held),
            Dialect::Tag => tag::may_hold(held, tools),
            Dialect::Signature => signature::may_hold(held),
            _ => match self.engine() {
                Engine::Kit(grammar) => kit::eager::may_hold(grammar, held, prefill),
                Engine::Own => false,
            },
        }
    }

    /// The dialect's markers: the literals a real stream carries as special tokens or fixed
    /// syntax, which a realistic splitting never cuts (`specs/runner.md` R1.4). For `tag`,
    /// the registry's tool tags.
    pub fn markers(self, tools: &Registry) -> Vec<String> {
        match self.engine() {
            Engine::Kit(grammar) => grammar.literals().iter().map(|m| (*m).to_owned()).collect(),
            Engine::Own => match self {
                Dialect::MdFence => vec!["```".to_owned(), "~~~".to_owned()],
                Dialect::Signature => vec!["###:".to_owned()],
                _ => tools
                    .tools()
                    .iter()
                    .flat_map(|t| [format!("<{}>", t.name), format!("</{}>", t.name)])
                    .collect(),
            },
        }
    }

    /// The generation prompt the dialect's chat template ends the prompt with by default, as
    /// far as it puts the reply in a state (`specs/streaming.md` C9.4): the prefill used when
    /// none is given (a corpus case without `.prefill`, `tch parse` without `--prefill`, a
    /// `begin` without `prefill`). `""` when the template leaves the reply at its start. Each
    /// dialect's spec names it, and the other variants a family has.
    pub fn default_prefill(self) -> &'static str {
        match self {
            Dialect::MdFence | Dialect::Tag | Dialect::Signature => "",
            Dialect::Hermes => hermes::DEFAULT_PREFILL,
            Dialect::Qwen3Coder => qwen3_coder::DEFAULT_PREFILL,
            Dialect::Harmony => harmony::DEFAULT_PREFILL,
            Dialect::DeepSeekV3 => deepseek::V3_DEFAULT_PREFILL,
            Dialect::DeepSeekV31 => deepseek::V31_DEFAULT_PREFILL,
            Dialect::DeepSeekV32 => dsml::V32_DEFAULT_PREFILL,
            Dialect::DeepSeekV4 => dsml::V4_DEFAULT_PREFILL,
            Dialect::DeepSeekV41 => dsml::V41_DEFAULT_PREFILL,
            Dialect::KimiK2 => kimi_k2::DEFAULT_PREFILL,
            Dialect::KimiK3 => kimi_k3::DEFAULT_PREFILL,
            Dialect::Glm45 => glm::GLM45_DEFAULT_PREFILL,
            Dialect::Glm47 => glm::GLM47_DEFAULT_PREFILL,
            Dialect::Gemma4 => gemma4::DEFAULT_PREFILL,
            Dialect::Mistral => mistral::DEFAULT_PREFILL,
            Dialect::Llama3Json => llama3_json::DEFAULT_PREFILL,
            Dialect::Pythonic => pythonic::DEFAULT_PREFILL,
            Dialect::MinimaxM2 => minimax_m2::DEFAULT_PREFILL,
        }
    }

    /// How the dialect's reference parser is built.
    fn engine(self) -> Engine {
        Engine::Kit(match self {
            Dialect::MdFence | Dialect::Tag | Dialect::Signature => return Engine::Own,
            Dialect::Hermes => &hermes::GRAMMAR,
            Dialect::Qwen3Coder => &qwen3_coder::GRAMMAR,
            Dialect::Harmony => &harmony::GRAMMAR,
            Dialect::DeepSeekV3 => &deepseek::V3,
            Dialect::DeepSeekV31 => &deepseek::V31,
            Dialect::DeepSeekV32 => &dsml::V32,
            Dialect::DeepSeekV4 => &dsml::V4,
            Dialect::DeepSeekV41 => &dsml::V41,
            Dialect::KimiK2 => &kimi_k2::GRAMMAR,
            Dialect::KimiK3 => &kimi_k3::GRAMMAR,
            Dialect::Glm45 => &glm::GLM45,
            Dialect::Glm47 => &glm::GLM47,
            Dialect::Gemma4 => &gemma4::GRAMMAR,
            Dialect::Mistral => &mistral::GRAMMAR,
            Dialect::Llama3Json => &llama3_json::GRAMMAR,
            Dialect::Pythonic => &pythonic::GRAMMAR,
            Dialect::MinimaxM2 => &minimax_m2::GRAMMAR,
        })
    }

    /// A fresh reference parser for this dialect, having read `prefill`, the generation prompt
    /// the stream continues (`specs/streaming.md` C9; `""` for none); `tools` is the registry
    /// in use.
    pub fn reference_parser(self, tools: &Arc<Registry>, prefill: &str) -> Box<dyn StreamParser> {
        let mut parser = self.fresh_parser(tools);
        if !prefill.is_empty() {
            parser.prefill(prefill);
        }
        parser
    }

    fn fresh_parser(self, tools: &Arc<Registry>) -> Box<dyn StreamParser> {
        if let Engine::Kit(grammar) = self.engine() {
            return Box::new(kit::KitParser::new(grammar, Arc::clone(tools)));
        }
        match self {
            Dialect::Tag => Box::new(tag::TagParser::new(Arc::clone(tools))),
            Dialect::Signature => Box::new(signature::SignatureParser::new(Arc::clone(tools))),
            _ => Box::new(md_fence::MdFenceParser::new()),
        }
    }
}

/// How a dialect's reference parser is built: on the kit from a grammar, or its own module
/// (the seed dialects, whose line- and name-based syntaxes are not marker tables).
enum Engine {
    Kit(&'static kit::Grammar),
    Own,
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
