//! The reference behind the protocol (`tch serve`, `specs/protocol.md` §4): reads requests,
//! runs the reference parsers, writes events, or (`Output::OpenaiChunks`) the OpenAI chunks a
//! correct server writes for them (`specs/protocol.md` §5). The template every adapter copies.

use std::io::{self, BufRead, Write};
use std::sync::Arc;

use serde_json::json;

use crate::definitions::{bundled_registry, parse_definition};
use crate::dialect::Dialect;
use crate::event::Event;
use crate::parser::StreamParser;
use crate::protocol::{Begin, PROTOCOL_VERSION, Request, RequestOption, ToolInfo, control_line};
use crate::tools::{Registry, RegistryError, Tool};
use crate::wire::{ChunkWriter, Output};

/// Serves requests from `input` until `bye` or its end, answering with events.
pub fn serve(input: impl BufRead, output: impl Write, dialects: &[Dialect]) -> io::Result<()> {
    serve_as(input, output, dialects, Output::Events)
}

/// [`serve`], answering `chunk` and `end` as `answer` says: events, or OpenAI chunks
/// (`specs/protocol.md` §5) written by a [`ChunkWriter`], as a correct server writes them.
pub fn serve_as(
    input: impl BufRead,
    mut output: impl Write,
    dialects: &[Dialect],
    answer: Output,
) -> io::Result<()> {
    let mut server = Server {
        dialects,
        stream: None,
        tools: None,
        answer,
    };
    for line in input.split(b'\n') {
        let line = line?;
        if line.trim_ascii().is_empty() {
            continue;
        }
        let request = match serde_json::from_slice::<Request>(&line) {
            Ok(request) => request,
            Err(error) => {
                writeln!(
                    output,
                    "{}",
                    Event::error(format!("bad request: {error}")).to_json_line()
                )?;
                output.flush()?;
                continue;
            }
        };
        if request == Request::Bye {
            break;
        }
        for reply in server.answer(request) {
            writeln!(output, "{reply}")?;
        }
        output.flush()?;
    }
    Ok(())
}

struct Server<'d> {
    dialects: &'d [Dialect],
    /// The stream being served: its id, and per choice (P6.7) its own parser and chunk
    /// writer (OpenAI chunks): nothing is shared between the choices of one request.
    stream: Option<(String, Vec<Choice>)>,
    /// What `chunk` and `end` are answered with.
    answer: Output,
    /// The last `begin`'s tools and their registry: most runs send the same list every time,
    /// and compiling schemas per stream would dominate.
    tools: Option<(Vec<ToolInfo>, Arc<Registry>)>,
}

impl Server<'_> {
    /// The reply lines to one request.
    fn answer(&mut self, request: Request) -> Vec<String> {
        match request {
            Request::Hello { .. } => {
                let dialects: Vec<&str> = self.dialects.iter().map(|d| d.name()).collect();
                let mut hello = json!({
                    "type": "hello",
                    "protocol": PROTOCOL_VERSION,
                    "name": format!("tch serve {}", env!("CARGO_PKG_VERSION")),
                    "dialects": dialects,
                    "definitions": true,
                    "nonStreaming": true,
                    "options": [
                        RequestOption::ToolChoice,
                        RequestOption::ParallelToolCalls,
                        RequestOption::N,
                    ],
                });
                if self.answer != Output::Events {
                    hello["output"] = json!(self.answer.name());
                }
                vec![hello.to_string()]
            }
            Request::Begin(Begin {
                stream,
                dialect,
                prefill,
                tools,
                options,
            }) => {
                let dialect = match dialect.parse::<Dialect>() {
                    Ok(d) if self.dialects.contains(&d) => d,
                    _ => return vec![error_line(format!("dialect \"{dialect}\" is not served"))],
                };
                match self.registry(tools) {
                    Ok(registry) => {
                        let prefill = prefill.as_deref().unwrap_or(dialect.default_prefill());
                        let count = options.choices();
                        let choices = (0..count)
                            .map(|choice| Choice {
                                parser: options
                                    .reference(dialect.reference_parser(&registry, prefill)),
                                writer: ChunkWriter::for_choice(choice, count),
                            })
                            .collect();
                        self.stream = Some((stream, choices));
                        Vec::new()
                    }
                    Err(reason) => vec![error_line(reason)],
                }
            }
            Request::Chunk {
                stream,
                choice,
                text,
            } => self.feed(&stream, choice, Closing::Sync, |parser, out| {
                parser.push(&text, out)
            }),
            Request::End { stream, choice } => {
                let lines = self.feed(&stream, choice, Closing::Done, |parser, out| {
                    parser.finish(out)
                });
                // Whether `feed` wrote events or chunks, the stream is over once its last
                // choice is.
                if let Some((_, choices)) = &self.stream
                    && choice.unwrap_or(0) as usize + 1 >= choices.len()
                {
                    self.stream = None;
                }
                lines
            }
            // The reference has one path: the whole reply pushed at once, then finished
            // (P2.11). Its answer equals the streamed one by construction; as chunks' server,
            // it writes one `chat.completion` object (P5.7).
            Request::NonStreaming { stream, text } => {
                let whole = |parser: &mut dyn StreamParser, out: &mut Vec<Event>| {
                    parser.push(&text, out);
                    parser.finish(out);
                };
                let lines = self.feed(&stream, None, Closing::Whole, whole);
                self.stream = None;
                lines
            }
            Request::Definition { kind, text } => {
                let contract = parse_definition("definition", kind, &text)
                    .map_err(|e| e.to_string())
                    .and_then(|c| serde_json::to_value(&c).map_err(|e| e.to_string()));
                match contract {
                    Ok(value) => vec![json!({"type": "definition", "value": value}).to_string()],
                    Err(reason) => vec![error_line(reason)],
                }
            }
            Request::Bye => Vec::new(),
        }
    }

    fn feed(
        &mut self,
        stream: &str,
        choice: Option<u32>,
        closing: Closing,
        step: impl FnOnce(&mut dyn StreamParser, &mut Vec<Event>),
    ) -> Vec<String> {
        let mut lines = Vec::new();
        let index = choice.unwrap_or(0) as usize;
        match &mut self.stream {
            Some((id, choices)) if id == stream && index < choices.len() => {
                let Choice { parser, writer } = &mut choices[index];
                let mut events = Vec::new();
                step(parser.as_mut(), &mut events);
                match (self.answer, closing) {
                    (Output::Events, _) => lines.extend(events.iter().map(Event::to_json_line)),
                    (Output::OpenaiChunks, Closing::Sync) => lines.extend(writer.events(&events)),
                    (Output::OpenaiChunks, Closing::Done) => {
                        lines.extend(writer.events(&events));
                        lines.extend(writer.finish());
                    }
                    (Output::OpenaiChunks, Closing::Whole) => {
                        lines.push(ChunkWriter::completion(&events));
                    }
                }
            }
            Some((id, choices)) if id == stream => lines.push(error_line(format!(
                "stream \"{stream}\" has {} choices, not a choice {index}",
                choices.len()
            ))),
            _ => lines.push(error_line(format!("no stream \"{stream}\" was begun"))),
        }
        lines.push(control_line(match closing {
            Closing::Sync => "sync",
            Closing::Done | Closing::Whole => "done",
        }));
        lines
    }

    fn registry(&mut self, tools: Vec<ToolInfo>) -> Result<Arc<Registry>, String> {
        if let Some((known, registry)) = &self.tools
            && *known == tools
        {
            return Ok(Arc::clone(registry));
        }
        let registry = if tools.is_empty() {
            bundled_registry().map_err(|e| e.to_string())?
        } else {
            // A declared tool whose name no registry holds (`météo`, `fs.read`: not an OpenAI
            // function name) is left out: a stream may call it (P2.2 declares it), and the
            // reference reads calls by their markup, never by the registry's names (`specs/protocol.md` §4).
            let built: Result<Vec<Tool>, _> = tools
                .iter()
                .map(|t| {
                    Tool::new(
                        t.name.clone(),
                        t.description.clone(),
                        t.input_schema.clone(),
                    )
                })
                .filter(|t| !matches!(t, Err(RegistryError::InvalidName(_))))
                .collect();
            Registry::new(built.map_err(|e| e.to_string())?).map_err(|e| e.to_string())?
        };
        let registry = Arc::new(registry);
        self.tools = Some((tools, Arc::clone(&registry)));
        Ok(registry)
    }
}

/// How a request's answer ends: a `chunk`'s (`sync`), a stream's `end` (`done`), or a
/// `non-streaming` request's (`done`; for a chunks server, one `chat.completion` object).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closing {
    Sync,
    Done,
    Whole,
}

/// One choice of the stream being served.
struct Choice {
    parser: Box<dyn StreamParser>,
    writer: ChunkWriter,
}

fn error_line(error_text: String) -> String {
    Event::error(error_text).to_json_line()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(requests: &str) -> String {
        let mut output = Vec::new();
        serve(requests.as_bytes(), &mut output, Dialect::ALL).expect("in-memory io");
        String::from_utf8(output).expect("UTF-8")
    }

    #[test]
    fn serves_a_stream() {
        let out = session(concat!(
            r#"{"op":"hello","protocol":1}"#,
            "\n",
            r#"{"op":"begin","stream":"s","dialect":"md-fence","tools":[]}"#,
            "\n",
            r#"{"op":"chunk","stream":"s","text":"hi\n```to"}"#,
            "\n",
            r#"{"op":"chunk","stream":"s","text":"ol x\n```\n"}"#,
            "\n",
            r#"{"op":"end","stream":"s"}"#,
            "\n",
            r#"{"op":"bye"}"#,
            "\n",
            r#"{"op":"hello","protocol":1}"#,
            "\n",
        ));
        let lines: Vec<&str> = out.lines().collect();
        assert!(
            lines[0].starts_with(r#"{"type":"hello","protocol":1,"name":"tch serve"#),
            "{}",
            lines[0]
        );
        assert_eq!(
            &lines[1..],
            [
                r#"{"type":"text-delta","delta":"hi\n"}"#,
                r#"{"type":"sync"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"x","input":{}}"#,
                r#"{"type":"sync"}"#,
                r#"{"type":"done"}"#,
            ]
        );
    }

    #[test]
    fn answers_the_whole_reply_at_once() {
        // P2.11: after begin, the whole reply; its events, then done (no sync).
        let out = session(concat!(
            r#"{"op":"begin","stream":"s","dialect":"md-fence","tools":[]}"#,
            "\n",
            r#"{"op":"non-streaming","stream":"s","text":"hi\n```tool x\n```\n"}"#,
            "\n",
        ));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines,
            [
                r#"{"type":"text-delta","delta":"hi\n"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"x","input":{}}"#,
                r#"{"type":"done"}"#,
            ]
        );
    }

    #[test]
    fn bad_requests_get_an_error_and_the_server_goes_on() {
        let out = session(
            "nonsense\n{\"op\":\"chunk\",\"stream\":\"nope\",\"text\":\"x\"}\n{\"op\":\"begin\",\"stream\":\"s\",\"dialect\":\"klingon\"}\n",
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "{out}");
        assert!(lines[0].contains("bad request"));
        assert!(lines[1].contains("no stream \\\"nope\\\""));
        assert_eq!(lines[2], r#"{"type":"sync"}"#);
        assert!(lines[3].contains("klingon"));
    }
}
