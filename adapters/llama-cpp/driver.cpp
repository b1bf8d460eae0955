// tch driver of llama.cpp's chat parser (adapters/llama-cpp/README.md).
//
// Speaks tch's candidate protocol (specs/protocol.md) on stdin/stdout and drives llama.cpp's
// chat parser (common/chat.h) the way llama-server's streaming loop does:
//
//   - begin: the dialect's chat template (models/templates/*.jinja of the same tree) applied
//     to a one-message request declaring the begin's tools, as the server's
//     oaicompat_chat_params_parse (tools/server/server-common.cpp) applies it with
//     common_chat_templates_apply; the parser parameters as server_schema builds them
//     (tools/server/server-schema.cpp: chat_format, reasoning_format, generation_prompt,
//     chat_parser). Applied templates are cached per (dialect, tool list).
//   - chunk: task_result_state::update_chat_msg(text, is_partial=true)
//     (tools/server/server-task.cpp): the text is appended, the whole text re-parsed with
//     common_chat_parse, the tool call ids set, and the message diffed against the previous
//     one with common_chat_msg_diff::compute_diffs. Each diff is one SSE chunk whose delta is
//     server_chat_msg_diff_to_json_oaicompat(diff) (tools/server/server-chat.cpp).
//   - end: the final result's update_chat_msg("", is_partial=false) (in stream mode the final
//     result's content is "", server-context.cpp send_final_response).
//   - an exception in either (a parse that does not match the format, an "Invalid diff") ends
//     the stream with the server's error chunk, format_error_response(e.what()) in the
//     set_next loop of handle_completions_impl (tools/server/server-context.cpp).
//
// The deltas are read as a client reads them: the AI SDK's OpenAI-compatible chat model,
// rule for rule as specs/wire.md section 2 reads them (tch's wire::client), ported here.
//
// Stdout carries protocol lines only: fd 1 is moved aside at start and stdout pointed at
// stderr, so llama.cpp's own logging cannot reach the protocol.

#include "chat.h"
#include "log.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using json = nlohmann::ordered_json;

#ifndef TCH_LLAMA_TEMPLATES
#define TCH_LLAMA_TEMPLATES "models/templates"
#endif
#ifndef TCH_LLAMA_CPP_NAME
#define TCH_LLAMA_CPP_NAME "llama-cpp-0.3.36"
#endif

// tch dialect -> the chat template of a model that emits it (README.md, the table), and the
// templates of the dialect's other models, which a stream's prefill selects only when it is
// one of their generation prompts (README.md, "The prefill"): a server serving such a model
// applies its own template, whose prompt the stream continues.
struct dialect_template {
    const char *              dialect;
    const char *              file;
    std::vector<const char *> siblings = {};
};
static const dialect_template DIALECTS[] = {
    { "hermes",        "Qwen-Qwen3-0.6B.jinja" },
    { "qwen3-coder",   "Qwen3.5-4B.jinja" },
    { "harmony",       "openai-gpt-oss-120b.jinja" },
    { "deepseek-v3",   "llama-cpp-deepseek-r1.jinja" },
    { "deepseek-v3.1", "deepseek-ai-DeepSeek-V3.1.jinja" },
    { "deepseek-v3.2", "deepseek-ai-DeepSeek-V3.2.jinja" },
    { "deepseek-v4",   "deepseek-ai-DeepSeek-V4.jinja" },
    { "kimi-k2",       "Kimi-K2-Thinking.jinja" },
    { "kimi-k3",       "Kimi-K3.jinja" },
    { "glm-4.5",       "GLM-4.6.jinja" },
    { "glm-4.7",       "GLM-4.7-Flash.jinja" },
    { "gemma4",        "google-gemma-4-31B-it.jinja" },
    { "mistral",       "mistralai-Ministral-3-14B-Reasoning-2512.jinja" },
    { "minimax-m2",    "MiniMax-M2.jinja" },
    { "minimax-m3",    "MiniMax-M3.jinja" },
    { "llama3-json",   "meta-llama-Llama-3.1-8B-Instruct.jinja" },
    { "pythonic",      "LFM2-8B-A1B.jinja" },
    { "seed-oss",      "ByteDance-Seed-OSS.jinja" },
    { "gigachat3",     "GigaChat3-10B-A1.8B.jinja" },
    { "glimmer",       "muse-glimmer.jinja" },
    { "cohere",        "Cohere2MoE.jinja" },
    { "granite",       "ibm-granite-granite-3.3-2B-Instruct.jinja" },
    { "poolside",      "poolside-Laguna-XS.2.jinja", { "poolside-Laguna-S-2.1.jinja" } },
    { "apertus",       "Apertus-8B-Instruct.jinja" },
};

static FILE * g_out = nullptr;

static void send(const json & msg) {
    std::string line = msg.dump(-1, ' ', false, json::error_handler_t::replace);
    line += '\n';
    fwrite(line.data(), 1, line.size(), g_out);
}

static std::string read_file(const std::string & path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        throw std::runtime_error("cannot read " + path);
    }
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

static bool ends_with(const std::string & s, const std::string & suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

static std::string trim(const std::string & s) {
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) {
        return "";
    }
    size_t e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

// ---------------------------------------------------------------------------------------------
// The client: the AI SDK v5 OpenAI-compatible chat model's doStream, as specs/wire.md section 2
// reads it (tch's wire::client), plus its handling of the server's error chunk.
// ---------------------------------------------------------------------------------------------

static bool has_forbidden_prototype(const nlohmann::json & v) {
    if (v.is_object()) {
        if (v.contains("__proto__")) {
            return true;
        }
        auto c = v.find("constructor");
        if (c != v.end() && c->is_object() && c->contains("prototype")) {
            return true;
        }
        for (const auto & item : v.items()) {
            if (has_forbidden_prototype(item.value())) {
                return true;
            }
        }
    } else if (v.is_array()) {
        for (const auto & item : v) {
            if (has_forbidden_prototype(item)) {
                return true;
            }
        }
    }
    return false;
}

// provider-utils isParsableJson: JSON.parse, then secureJsonParse's prototype-key filter.
// (nlohmann refuses a \u escape of half a surrogate pair, which JSON.parse accepts.)
static bool is_parsable_json(const std::string & text) {
    nlohmann::json v = nlohmann::json::parse(text, nullptr, false);
    if (v.is_discarded()) {
        return false;
    }
    return !has_forbidden_prototype(v);
}

struct client_call {
    std::string id;
    std::string name;
    std::string arguments;
    bool        finished = false;
};

struct openai_client {
    std::map<size_t, client_call> calls;  // toolCalls of doStream, by index
    bool                          dead = false;  // the client threw: nothing more comes out

    static json error_event(const std::string & text) { return json{ { "type", "error" }, { "errorText", text } }; }

    static void complete(client_call & call, std::vector<json> & out) {
        call.finished = true;
        out.push_back(json{ { "type", "tool-input-end" }, { "id", call.id } });
        out.push_back(json{
            { "type", "tool-call" }, { "toolCallId", call.id }, { "toolName", call.name }, { "input", call.arguments } });
    }

    // One chunk's choices[0].delta.
    void delta(const json & d, std::vector<json> & out) {
        if (dead) {
            return;
        }
        // The chunk schema: a tool_calls entry needs a `function` object (the server omits it
        // when a diff carries neither name nor arguments); the chunk is skipped with an error.
        if (d.contains("tool_calls")) {
            for (const auto & tc : d["tool_calls"]) {
                if (!tc.contains("function")) {
                    out.push_back(error_event("Type validation failed: delta.tool_calls[0].function: expected object. Value: " +
                                              d.dump(-1, ' ', false, json::error_handler_t::replace)));
                    return;
                }
            }
        }
        // "enqueue reasoning before text deltas"
        if (d.contains("reasoning_content") && !d["reasoning_content"].get<std::string>().empty()) {
            out.push_back(json{ { "type", "reasoning-delta" }, { "delta", d["reasoning_content"] } });
        }
        if (d.contains("content") && !d["content"].get<std::string>().empty()) {
            out.push_back(json{ { "type", "text-delta" }, { "delta", d["content"] } });
        }
        if (!d.contains("tool_calls")) {
            return;
        }
        for (const auto & tc : d["tool_calls"]) {
            size_t       index    = tc["index"].get<size_t>();
            const json & function = tc["function"];
            auto         it       = calls.find(index);
            if (it == calls.end()) {
                // A new call: doStream throws InvalidResponseDataError without id or name.
                if (!tc.contains("id")) {
                    stream_dies(out, "Expected 'id' to be a string.", tc);
                    return;
                }
                if (!function.contains("name")) {
                    stream_dies(out, "Expected 'function.name' to be a string.", tc);
                    return;
                }
                client_call call;
                call.id        = tc["id"].get<std::string>();
                call.name      = function["name"].get<std::string>();
                call.arguments = function.contains("arguments") ? function["arguments"].get<std::string>() : "";
                auto & c       = calls[index] = call;
                out.push_back(json{ { "type", "tool-input-start" }, { "id", c.id }, { "toolName", c.name } });
                if (!c.arguments.empty()) {
                    out.push_back(json{ { "type", "tool-input-delta" }, { "id", c.id }, { "delta", c.arguments } });
                }
                if (is_parsable_json(c.arguments)) {
                    complete(c, out);
                }
                continue;
            }
            client_call & c = it->second;
            if (c.finished) {
                continue;  // a finished call's index: ignored
            }
            std::string fragment = function.contains("arguments") ? function["arguments"].get<std::string>() : "";
            c.arguments += fragment;
            out.push_back(json{ { "type", "tool-input-delta" }, { "id", c.id }, { "delta", fragment } });
            if (is_parsable_json(c.arguments)) {
                complete(c, out);
            }
        }
    }

    // The server's error chunk `{"error": {...}}`: doStream enqueues an error part with its
    // message and goes on; the server ends the stream after it, and flush still runs.
    void server_error(const std::string & message, std::vector<json> & out) {
        if (!dead) {
            out.push_back(error_event(message));
        }
    }

    // flush: every unfinished call, in index order, completes with its arguments as they are.
    void finish(std::vector<json> & out) {
        if (dead) {
            return;
        }
        for (auto & [index, call] : calls) {
            if (!call.finished) {
                complete(call, out);
            }
        }
    }

    void stream_dies(std::vector<json> & out, const std::string & message, const json & tc) {
        dead = true;
        out.push_back(error_event("InvalidResponseDataError: " + message +
                                  " Data: " + tc.dump(-1, ' ', false, json::error_handler_t::replace)));
    }
};

// server_chat_msg_diff_to_json_oaicompat (tools/server/server-chat.cpp), line for line.
static json diff_to_delta(const common_chat_msg_diff & diff) {
    json delta = json::object();
    if (!diff.reasoning_content_delta.empty()) {
        delta["reasoning_content"] = diff.reasoning_content_delta;
    }
    if (!diff.content_delta.empty()) {
        delta["content"] = diff.content_delta;
    }
    if (diff.tool_call_index != std::string::npos) {
        json tool_call;
        tool_call["index"] = diff.tool_call_index;
        if (!diff.tool_call_delta.id.empty()) {
            tool_call["id"]   = diff.tool_call_delta.id;
            tool_call["type"] = "function";
        }
        if (!diff.tool_call_delta.name.empty() || !diff.tool_call_delta.arguments.empty()) {
            json function = json::object();
            if (!diff.tool_call_delta.name.empty()) {
                function["name"] = diff.tool_call_delta.name;
            }
            if (!diff.tool_call_delta.arguments.empty()) {
                function["arguments"] = diff.tool_call_delta.arguments;
            }
            tool_call["function"] = function;
        }
        delta["tool_calls"] = json::array({ tool_call });
    }
    return delta;
}

// ---------------------------------------------------------------------------------------------
// Templates and parser parameters, cached per (dialect, tools).
// ---------------------------------------------------------------------------------------------

// One rendering of the request: enable_thinking on (the server's default) or off.
struct variant {
    common_chat_params        params;
    common_chat_parser_params parser;  // as server_schema builds it, generation_prompt included
};

struct applied {
    std::vector<variant> variants;  // [0]: enable_thinking=true; [1]: false, when it differs
    std::vector<variant> siblings;  // the siblings' renderings, both ways: chosen by prefill only
};

static std::string g_templates_dir;
static std::map<std::string, common_chat_templates_ptr>    g_templates;
static std::map<std::string, std::shared_ptr<applied>> g_applied;

static const dialect_template & template_of(const std::string & dialect) {
    for (const auto & d : DIALECTS) {
        if (dialect == d.dialect) {
            return d;
        }
    }
    throw std::runtime_error("no template for dialect " + dialect);
}

static common_chat_templates * templates_of(const std::string & file) {
    auto it = g_templates.find(file);
    if (it != g_templates.end()) {
        return it->second.get();
    }
    auto tmpls = common_chat_templates_init(/* model= */ nullptr, read_file(g_templates_dir + "/" + file));
    auto * raw = tmpls.get();
    g_templates[file] = std::move(tmpls);
    return raw;
}

// The request's tools in OpenAI form, from begin's {name, description, inputSchema}.
static nlohmann::json openai_tools(const json & begin_tools) {
    nlohmann::json tools = nlohmann::json::array();
    for (const auto & t : begin_tools) {
        nlohmann::json fn;
        fn["name"]        = t.value("name", "");
        fn["description"] = t.value("description", "");
        // P2.2: a tool without inputSchema accepts any input.
        fn["parameters"]  = t.contains("inputSchema") ? nlohmann::json::parse(t["inputSchema"].dump())
                                                      : nlohmann::json{ { "type", "object" } };
        tools.push_back({ { "type", "function" }, { "function", fn } });
    }
    return tools;
}

static variant render(common_chat_templates * tmpls, const std::vector<common_chat_tool> & tools, bool enable_thinking) {
    auto caps = common_chat_templates_get_caps(tmpls);

    common_chat_templates_inputs inputs;
    common_chat_msg              user;
    user.role       = "user";
    user.content    = "Hello";
    inputs.messages = { user };
    inputs.tools    = tools;
    inputs.tool_choice           = COMMON_CHAT_TOOL_CHOICE_AUTO;
    inputs.use_jinja             = true;
    inputs.parallel_tool_calls   = caps["supports_parallel_tool_calls"];
    inputs.add_generation_prompt = true;
    inputs.reasoning_format      = COMMON_REASONING_FORMAT_DEEPSEEK;  // common_params' default
    inputs.enable_thinking       = enable_thinking;
    if (!enable_thinking) {
        // As a client turns thinking off: chat_template_kwargs with enable_thinking false (the
        // server reads it into enable_thinking) and the switches of templates that read their
        // own variable instead (Kimi K3's `thinking`, Cohere2 MoE's `reasoning`).
        inputs.chat_template_kwargs["thinking"]  = "false";
        inputs.chat_template_kwargs["reasoning"] = "false";
    }

    variant v;
    v.params = common_chat_templates_apply(tmpls, inputs);

    // server_schema: chat_format, reasoning_format, generation_prompt, chat_parser.
    v.parser                      = common_chat_parser_params(v.params);
    v.parser.reasoning_format     = COMMON_REASONING_FORMAT_DEEPSEEK;
    v.parser.reasoning_in_content = false;  // stream && reasoning_format == deepseek-legacy
    if (!v.params.parser.empty()) {
        v.parser.parser.load(v.params.parser);
    }
    return v;
}

// A template's renderings: thinking on, and off when its generation prompt differs.
static std::vector<variant> renderings(common_chat_templates * tmpls, const std::vector<common_chat_tool> & tools) {
    std::vector<variant> out;
    out.push_back(render(tmpls, tools, true));
    try {
        variant off = render(tmpls, tools, false);
        if (off.params.generation_prompt != out[0].params.generation_prompt) {
            out.push_back(std::move(off));
        }
    } catch (const std::exception &) {
        // a template that cannot render thinking off keeps its one variant
    }
    return out;
}

static std::shared_ptr<applied> applied_for(const std::string & dialect, const json & begin_tools) {
    std::string key = dialect + "\n" + begin_tools.dump();
    auto        it  = g_applied.find(key);
    if (it != g_applied.end()) {
        return it->second;
    }
    const auto & d     = template_of(dialect);
    auto         oai   = openai_tools(begin_tools);
    auto         tools = common_chat_tools_parse_oaicompat(common_json::parse(oai.dump()));
    auto         a     = std::make_shared<applied>();
    a->variants        = renderings(templates_of(d.file), tools);
    for (const char * sibling : d.siblings) {
        for (auto & v : renderings(templates_of(sibling), tools)) {
            a->siblings.push_back(std::move(v));
        }
    }
    g_applied[key] = a;
    return a;
}

// Whether `text` leaves reasoning open: its last reasoning opener after its last closer.
static bool reasoning_open(const common_chat_params & p, const std::string & text) {
    if (!p.supports_thinking) {
        return false;
    }
    std::string start = trim(p.thinking_start_tag);
    if (start.empty()) {
        return false;
    }
    size_t opened = text.rfind(start);
    if (opened == std::string::npos) {
        return false;
    }
    for (const auto & end_tag : p.thinking_end_tags) {
        std::string end = trim(end_tag);
        size_t      closed = end.empty() ? std::string::npos : text.rfind(end);
        if (closed != std::string::npos && closed > opened) {
            return false;
        }
    }
    return true;
}

// The parser parameters for a stream with this prefill (README.md, "The prefill"). The
// prefill and llama.cpp's generation prompt are both the end of the prompt, either one the
// longer: (1) the rendering whose generation prompt ends with the prefill, or that the prefill
// ends with, the dialect's own template's first, then its siblings'; (2) else the rendering that leaves reasoning open or closed as the prefill does
// and contains it; (3) else the thinking-on rendering's generation prompt (cut before its
// reasoning opener when the prefill leaves reasoning closed) continued by what the prefill
// has after it: after its last occurrence in the prefill, or after their overlap.
static common_chat_parser_params parser_for(const applied & a, const std::string & prefill) {
    for (const auto * renderings : { &a.variants, &a.siblings }) {
        for (const auto & v : *renderings) {
            const std::string & g = v.params.generation_prompt;
            if (!prefill.empty() && (ends_with(g, prefill) || ends_with(prefill, g))) {
                return v.parser;
            }
        }
    }
    const variant & on   = a.variants[0];
    bool            want = reasoning_open(on.params, prefill);
    for (const auto & v : a.variants) {
        const std::string & g = v.params.generation_prompt;
        if (reasoning_open(v.params, g) == want && (prefill.empty() || g.find(prefill) != std::string::npos)) {
            return v.parser;
        }
    }
    std::string base = on.params.generation_prompt;
    if (!want && reasoning_open(on.params, base)) {
        base = base.substr(0, base.rfind(trim(on.params.thinking_start_tag)));
    }
    std::string rest;
    size_t      at = base.empty() ? std::string::npos : prefill.rfind(base);
    if (at != std::string::npos) {
        rest = prefill.substr(at + base.size());
    } else {
        size_t overlap = std::min(base.size(), prefill.size());
        while (overlap > 0 && base.compare(base.size() - overlap, overlap, prefill, 0, overlap) != 0) {
            overlap--;
        }
        rest = prefill.substr(overlap);
    }
    common_chat_parser_params p = on.parser;
    p.generation_prompt         = base + rest;
    return p;
}

// ---------------------------------------------------------------------------------------------
// One stream: task_result_state (tools/server/server-task.cpp) and the client.
// ---------------------------------------------------------------------------------------------

struct stream_state {
    common_chat_parser_params params;
    common_chat_msg           chat_msg;
    std::string               generated_text;
    std::vector<std::string>  generated_tool_call_ids;
    openai_client             client;
    bool                      ended = false;  // the server sent its error chunk: no more chunks
    std::string               refused;  // the request failed before streaming (template error)
    unsigned                  next_id = 0;
};

// random_string() of server-common.cpp is 32 random alphanumerics; tch renames invented ids,
// so a counter keeps runs reproducible.
static std::string gen_tool_call_id(stream_state & s) {
    char buf[40];
    snprintf(buf, sizeof buf, "call%028u", ++s.next_id);
    return buf;
}

// task_result_state::update_chat_msg, without the filter_tool_calls branch (the chat
// completion stream calls it with the default, false).
static void update_chat_msg(stream_state & s, const std::string & text_added, bool is_partial,
                            std::vector<common_chat_msg_diff> & diffs) {
    s.generated_text += text_added;
    auto msg_prv_copy = s.chat_msg;
    auto new_msg      = common_chat_parse(s.generated_text, is_partial, s.params);
    if (!new_msg.empty()) {
        new_msg.set_tool_call_ids(s.generated_tool_call_ids, [&s]() { return gen_tool_call_id(s); });
        s.chat_msg = new_msg;
        diffs      = common_chat_msg_diff::compute_diffs(msg_prv_copy, s.chat_msg);
    }
}

static void step(stream_state & s, const std::string & text, bool is_partial, std::vector<json> & out) {
    if (!s.refused.empty()) {
        // The server answers such a request with an error response before any chunk.
        s.client.server_error(s.refused, out);
        s.refused.clear();
        s.ended = true;
    }
    if (s.ended) {
        return;
    }
    std::vector<common_chat_msg_diff> diffs;
    try {
        update_chat_msg(s, text, is_partial, diffs);
    } catch (const std::exception & e) {
        // format_error_response(e.what(), ERROR_TYPE_SERVER): the stream ends after it.
        s.ended = true;
        s.client.server_error(e.what(), out);
        return;
    }
    for (const auto & diff : diffs) {
        s.client.delta(diff_to_delta(diff), out);
    }
}

// P2.9: the dialects whose templates open reasoning in every generation prompt they render
// (thinking on and off alike, no tools), so that llama.cpp's parser always starts inside
// reasoning: a reply whose prompt left reasoning closed cannot come from that template.
static json starts_in_reasoning() {
    json out = json::array();
    for (const auto & d : DIALECTS) {
        try {
            auto a    = applied_for(d.dialect, json::array());
            bool open = true;
            for (const auto * renderings : { &a->variants, &a->siblings }) {
                for (const auto & v : *renderings) {
                    open = open && reasoning_open(v.params, v.params.generation_prompt);
                }
            }
            if (open) {
                out.push_back(d.dialect);
            }
        } catch (const std::exception & e) {
            std::cerr << "llama-cpp adapter: " << d.dialect << ": " << e.what() << "\n";
        }
    }
    return out;
}

static json hello() {
    json dialects = json::array();
    for (const auto & d : DIALECTS) {
        dialects.push_back(d.dialect);
    }
    return json{ { "type", "hello" },
                 { "protocol", 1 },
                 { "name", TCH_LLAMA_CPP_NAME },
                 { "dialects", dialects },
                 { "startsInReasoning", starts_in_reasoning() } };
}

// `--probe DIALECT [PREFILL]`: what the adapter sets up for a dialect with the tools of
// TOOLS_JSON (a begin's tools array; default none): format, generation prompts, the parser.
static int probe(const std::string & dialect, const std::string & prefill) {
    // llama.cpp's debug log names the handler ("Using specialized template: …" or "using
    // differential autoparser").
    common_log_set_verbosity_thold(LOG_DEFAULT_DEBUG);
    json tools = json::array();
    if (const char * t = getenv("TOOLS_JSON")) {
        tools = json::parse(t);
    }
    auto a = applied_for(dialect, tools);
    for (size_t i = 0; i < a->variants.size(); i++) {
        const auto & p = a->variants[i].params;
        std::cerr << "variant " << (i == 0 ? "enable_thinking=true" : "enable_thinking=false") << ": format "
                  << common_chat_format_name(p.format) << ", supports_thinking " << p.supports_thinking
                  << ", thinking_start_tag " << json(p.thinking_start_tag).dump() << ", generation_prompt "
                  << json(p.generation_prompt).dump() << "\n";
    }
    for (const auto & v : a->siblings) {
        std::cerr << "sibling template's rendering (by prefill only): generation_prompt "
                  << json(v.params.generation_prompt).dump() << "\n";
    }
    auto pp = parser_for(*a, prefill);
    std::cerr << "prefill " << json(prefill).dump() << " -> parser generation_prompt "
              << json(pp.generation_prompt).dump() << "\n";
    if (getenv("DUMP_PARSER")) {
        std::cerr << pp.parser.dump(pp.parser.root()) << "\n";
    }
    return 0;
}

int main(int argc, char ** argv) {
    // Protocol lines go to the original stdout; anything else printing to stdout lands on stderr.
    int proto_fd = dup(1);
    dup2(2, 1);
    g_out = fdopen(proto_fd, "w");

    const char * dir = getenv("TCH_LLAMA_CPP_TEMPLATES");
    g_templates_dir  = dir ? dir : TCH_LLAMA_TEMPLATES;

    if (argc >= 3 && std::string(argv[1]) == "--probe") {
        try {
            return probe(argv[2], argc >= 4 ? argv[3] : "");
        } catch (const std::exception & e) {
            // an unknown dialect, a template that fails to apply: one line, exit 2
            std::cerr << "llama-cpp adapter: --probe " << argv[2] << ": " << e.what() << "\n";
            return 2;
        }
    }

    std::unique_ptr<stream_state> s;
    std::string                   line;
    while (std::getline(std::cin, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) {
            continue;
        }
        json        req = json::parse(line);
        std::string op  = req.value("op", "");
        if (op == "hello") {
            send(hello());
        } else if (op == "begin") {
            s = std::make_unique<stream_state>();
            try {
                auto a    = applied_for(req.value("dialect", ""), req.contains("tools") ? req["tools"] : json::array());
                s->params = parser_for(*a, req.value("prefill", std::string()));
            } catch (const std::exception & e) {
                s->refused = e.what();
            }
        } else if ((op == "chunk" || op == "end") && !s) {
            // a chunk or end without begin: answered as an empty stream would be
            if (op == "end") {
                send(json{ { "type", "done" } });
            } else {
                send(json{ { "type", "sync" } });
            }
        } else if (op == "chunk") {
            std::vector<json> out;
            step(*s, req.value("text", ""), true, out);
            for (const auto & e : out) {
                send(e);
            }
            send(json{ { "type", "sync" } });
        } else if (op == "end") {
            std::vector<json> out;
            step(*s, "", false, out);
            s->client.finish(out);
            for (const auto & e : out) {
                send(e);
            }
            send(json{ { "type", "done" } });
            s.reset();
        } else if (op == "bye") {
            break;
        } else {
            send(json{ { "type", "error" }, { "errorText", "unsupported request " + op } });
        }
        fflush(g_out);
    }
    // Leave without running static destructors: tearing down llama.cpp's statics after the
    // cached templates crashed (SIGSEGV) at exit, after the protocol was over.
    fflush(g_out);
    _exit(0);
}
