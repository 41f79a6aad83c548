// `allot lsp`: a minimal language server over standard input and output
// (docs/EDITORS.md): the Language Server Protocol's JSON-RPC with
// Content-Length framing; diagnostics when a document is opened or changed
// (the checker's, with their codes, notes and help), formatting (`allot fmt`),
// and go-to-definition for functions, classes, exceptions and tree nodes, in
// the policy or the files it imports. In the lint library: `allot-lint lsp`
// serves an editor with neither LLVM nor libslurm installed.
//
// Input is hostile like any other: a message is at most kMaxMessageBytes, a
// document at most a policy file's limit; a malformed message gets a JSON-RPC
// error, never a crash.
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "allot/files.h"
#include "allot/text.h"
#include "lint.h"

namespace allot::cli {
namespace {

using Json = nlohmann::json;

constexpr std::size_t kMaxMessageBytes = std::size_t{16} << 20;
constexpr std::size_t kMaxHeaderBytes = 8192;

// One message's body, or nullopt at the end of input; `error` says why a message could not be read.
std::optional<std::string> read_message(std::istream& in, std::string& error) {
  std::size_t length = 0;
  bool have_length = false;
  std::string header;
  std::size_t header_bytes = 0;
  while (true) {
    if (!std::getline(in, header)) return std::nullopt;
    header_bytes += header.size() + 1;
    if (header_bytes > kMaxHeaderBytes) {
      error = "the message's headers are too long";
      return std::nullopt;
    }
    if (!header.empty() && header.back() == '\r') header.pop_back();
    if (header.empty()) break;
    constexpr std::string_view kLength = "Content-Length:";
    if (header.compare(0, kLength.size(), kLength) == 0) {
      const std::string value = header.substr(kLength.size());
      const std::size_t start = value.find_first_not_of(' ');
      if (start == std::string::npos || value.find_first_not_of("0123456789", start) != std::string::npos ||
          value.size() - start > 9) {
        error = "a Content-Length that is not a number";
        return std::nullopt;
      }
      length = std::stoul(value.substr(start));
      have_length = true;
    }
  }
  if (!have_length || length > kMaxMessageBytes) {
    error = have_length ? fmt::format("a message of {} bytes, more than the {} allowed", length, kMaxMessageBytes)
                        : "a message without Content-Length";
    return std::nullopt;
  }
  std::string body(length, '\0');
  if (!in.read(body.data(), static_cast<std::streamsize>(length))) return std::nullopt;
  return body;
}

void write_message(const Json& message) {
  // Exact bytes: the framing's \r\n and the JSON's own escapes (not the guarded stream).
  const std::string body = message.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::ostream& out = support::unguarded_stdout();
  out << "Content-Length: " << body.size() << "\r\n\r\n" << body;
  out.flush();
}

// "file:///a/b%20c.allot" -> "/a/b c.allot"; other schemes are not files.
std::optional<std::string> path_of(const std::string& uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.compare(0, kScheme.size(), kScheme) != 0) return std::nullopt;
  std::string path;
  for (std::size_t i = kScheme.size(); i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && std::isxdigit(static_cast<unsigned char>(uri[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(uri[i + 2]))) {
      path += static_cast<char>(std::stoi(uri.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      path += uri[i];
    }
  }
  return path;
}

std::string uri_of(const std::string& path) {
  std::string uri = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '-' || c == '_' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      uri += fmt::format("%{:02X}", c);
    }
  }
  return uri;
}

Json position(int line, int column) {
  return Json{{"line", std::max(0, line - 1)}, {"character", std::max(0, column - 1)}};
}

Json range_of(const SourceSpan& span) {
  const int end_line = span.end_line > 0 ? span.end_line : span.line;
  const int end_column = span.end_column > 0 ? span.end_column : span.column + 1;
  return Json{{"start", position(span.line, span.column)}, {"end", position(end_line, end_column)}};
}

// The checker's diagnostics about `path` as LSP diagnostics (notes and help in the message).
Json diagnostics_of(const std::string& path, const std::string& text, const CheckOptions& options) {
  const CheckResult result = check_source(path, text, options);
  Json diagnostics = Json::array();
  for (const Diagnostic& d : result.diagnostics) {
    if (d.span.file != path) continue;  // about an imported file: reported on that file's own open
    std::string message = d.message;
    for (const DiagnosticNote& note : d.notes) message += "\nnote: " + note.message;
    if (!d.help.empty()) message += "\nhelp: " + d.help;
    diagnostics.push_back(Json{{"range", range_of(d.span)},
                               {"severity", d.severity == Severity::error ? 1 : 2},
                               {"code", d.code},
                               {"source", "allot"},
                               {"message", message}});
  }
  return diagnostics;
}

// The identifier under a zero-based (line, character) of `text`, or "".
std::string word_at(const std::string& text, long line, long character) {
  std::size_t start = 0;
  for (long i = 0; i < line; ++i) {
    start = text.find('\n', start);
    if (start == std::string::npos) return "";
    ++start;
  }
  const std::size_t end_of_line = std::min(text.find('\n', start), text.size());
  const auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::size_t at = start + static_cast<std::size_t>(std::max(0L, character));
  if (at > end_of_line) return "";
  if (at == end_of_line || !is_word(text[at])) {
    if (at == start || !is_word(text[at - 1])) return "";
    --at;  // just after a word
  }
  std::size_t begin = at, finish = at;
  while (begin > start && is_word(text[begin - 1])) --begin;
  while (finish < end_of_line && is_word(text[finish])) ++finish;
  return text.substr(begin, finish - begin);
}

// The whole document replaced: an edit from its start to its end.
Json whole_document(const std::string& text, const std::string& replacement) {
  long lines = 0;
  std::size_t last = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++lines;
      last = i + 1;
    }
  }
  const Json end{{"line", lines}, {"character", text.size() - last}};
  return Json::array(
      {Json{{"range", Json{{"start", Json{{"line", 0}, {"character", 0}}}, {"end", end}}}, {"newText", replacement}}});
}

class Server {
 public:
  // Returns the process's exit code once the client says `exit` (or input ends).
  int run() {
    std::string error;
    while (true) {
      error.clear();
      const std::optional<std::string> body = read_message(std::cin, error);
      if (!body) {
        if (!error.empty()) std::cerr << "allot lsp: " << error << "\n";
        return shutdown_ ? 0 : 1;
      }
      Json message = Json::parse(*body, nullptr, false);
      if (message.is_discarded() || !message.is_object()) {
        write_message(Json{
            {"jsonrpc", "2.0"}, {"id", nullptr}, {"error", Json{{"code", -32700}, {"message", "not a JSON object"}}}});
        continue;
      }
      const std::string method = message.value("method", "");
      if (method == "exit") return shutdown_ ? 0 : 1;
      const bool request = message.contains("id");
      try {
        const Json result = handle(method, message.value("params", Json::object()));
        if (request) write_message(Json{{"jsonrpc", "2.0"}, {"id", message["id"]}, {"result", result}});
      } catch (const MethodNotFound&) {
        if (request) {
          write_message(Json{{"jsonrpc", "2.0"},
                             {"id", message["id"]},
                             {"error", Json{{"code", -32601}, {"message", "no method `" + method + "`"}}}});
        }
      } catch (const std::exception& problem) {  // a parameter of the wrong shape
        if (request) {
          write_message(Json{{"jsonrpc", "2.0"},
                             {"id", message["id"]},
                             {"error", Json{{"code", -32602}, {"message", problem.what()}}}});
        }
      }
    }
  }

 private:
  struct MethodNotFound {};

  Json handle(const std::string& method, const Json& params) {
    if (method == "initialize") {
      return Json{{"capabilities", Json{{"textDocumentSync", 1},  // full text on every change
                                        {"documentFormattingProvider", true},
                                        {"definitionProvider", true}}},
                  {"serverInfo", Json{{"name", "allot"}, {"version", version_text()}}}};
    }
    if (method == "shutdown") {
      shutdown_ = true;
      return nullptr;
    }
    if (method == "initialized" || method == "textDocument/didSave" || method.rfind("$/", 0) == 0) return nullptr;
    if (method == "textDocument/didOpen") {
      const Json& document = params.at("textDocument");
      update(document.at("uri").get<std::string>(), document.at("text").get<std::string>());
      return nullptr;
    }
    if (method == "textDocument/didChange") {
      const Json& changes = params.at("contentChanges");
      if (!changes.empty()) {
        update(params.at("textDocument").at("uri").get<std::string>(), changes.back().at("text").get<std::string>());
      }
      return nullptr;
    }
    if (method == "textDocument/didClose") {
      const std::string uri = params.at("textDocument").at("uri").get<std::string>();
      documents_.erase(uri);
      publish(uri, Json::array());
      return nullptr;
    }
    if (method == "textDocument/formatting") return format(params.at("textDocument").at("uri").get<std::string>());
    if (method == "textDocument/definition") {
      return definition(params.at("textDocument").at("uri").get<std::string>(),
                        params.at("position").at("line").get<long>(),
                        params.at("position").at("character").get<long>());
    }
    throw MethodNotFound{};
  }

  CheckOptions options() const {
    CheckOptions options;
    options.import_path = import_path();
    return options;
  }

  // A document over the checker's limit is kept whole (a message is at most
  // kMaxMessageBytes) and the checker reports it as `input_too_large`.
  void update(const std::string& uri, const std::string& text) {
    documents_[uri] = text;
    const std::optional<std::string> path = path_of(uri);
    publish(uri, path ? diagnostics_of(*path, text, options()) : Json::array());
  }

  void publish(const std::string& uri, Json diagnostics) {
    write_message(Json{{"jsonrpc", "2.0"},
                       {"method", "textDocument/publishDiagnostics"},
                       {"params", Json{{"uri", uri}, {"diagnostics", std::move(diagnostics)}}}});
  }

  Json format(const std::string& uri) const {
    const auto it = documents_.find(uri);
    if (it == documents_.end()) return Json::array();
    const FormatResult result = format_source(path_of(uri).value_or(uri), it->second);
    if (!result.formatted || *result.formatted == it->second) return Json::array();  // nothing to do, or errors
    return whole_document(it->second, *result.formatted);
  }

  Json definition(const std::string& uri, long line, long character) const {
    const auto it = documents_.find(uri);
    const std::optional<std::string> path = path_of(uri);
    if (it == documents_.end() || !path) return nullptr;
    const std::string name = word_at(it->second, line, character);
    if (name.empty()) return nullptr;
    const std::optional<SourceSpan> found = find_declaration(*path, it->second, name, options());
    if (!found) return nullptr;
    if (found->file == *path) return Json{{"uri", uri}, {"range", range_of(*found)}};
    std::error_code error;
    const std::filesystem::path file = std::filesystem::absolute(found->file, error);  // imports are shown relative
    return Json{{"uri", uri_of(error ? found->file : file.lexically_normal().string())}, {"range", range_of(*found)}};
  }

  std::map<std::string, std::string> documents_;  // uri -> text
  bool shutdown_ = false;
};

}  // namespace

int run_lsp() { return Server().run(); }

}  // namespace allot::cli
