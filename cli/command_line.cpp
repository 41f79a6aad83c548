#include "command_line.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <iostream>

#include <fmt/format.h>

#include "allot/nearest_name.h"

namespace allot::cli {

CLI::Validator bounded(double low, double high, bool above_low) {
  return CLI::Validator(
      [=](const std::string& text) -> std::string {
        double value = 0;
        try {
          std::size_t used = 0;
          value = std::stod(text, &used);
          if (used != text.size()) return fmt::format("`{}` is not a number", text);
        } catch (const std::exception&) {
          return fmt::format("`{}` is not a number", text);
        }
        if (!std::isfinite(value) || value < low || value > high || (above_low && value == low))
          return fmt::format("`{}` must be {} {} and at most {}", text, above_low ? "above" : "at least", low, high);
        return "";
      },
      fmt::format("{} {}..{}", above_low ? "above" : "from", low, high));
}

const char* const kEmptyPath = "the path is empty (an unset shell variable?)";

const CLI::Validator kPath([](const std::string& text) -> std::string { return text.empty() ? kEmptyPath : ""; },
                           "PATH");

void add_lint_commands(CLI::App& app, LintCommands& lint) {
  app.require_subcommand(1);
  // -I on any command, before or after its name: where every command looks up imports.
  app.fallthrough();
  app.add_option("-I,--import-path", lint.import_folders,
                 "A folder imports are looked up in, after the importing file's own (repeatable; then ALLOT_PATH's, "
                 "then the stdlib)")
      ->allow_extra_args(false)  // one folder each time: `-I DIR FILE` leaves FILE to the command
      ->check(kPath);
  app.set_version_flag("--version", version_text(), "Print the version and the commit it was built from");
  lint.help_command = app.add_subcommand("help", "Print this help");
  lint.help_command->add_flag("--man", lint.man, "Print the manual page (troff) instead");
  lint.completion_command = app.add_subcommand("completion", "Print a shell completion script: `completion bash`");
  lint.completion_command->add_option("shell", lint.completion_shell, "The shell (bash)")
      ->check(CLI::IsMember({"bash"}))
      ->required();

  CheckArguments& check = lint.check;
  lint.check_command = app.add_subcommand("check", "Validate policy files and report diagnostics");
  CLI::App* check_command = lint.check_command;
  check_command
      ->add_option("paths", check.paths, "Policy files or folders (every *.allot below); `-` reads standard input")
      ->check(kPath);
  check_command->add_option("--explain", check.explain,
                            "Print what a diagnostic code means, with an example and the fix (docs/DIAGNOSTICS.md)");
  check_command->add_option("--now", check.now, "Today's date for review and expiry checks (YYYY-MM-DD)");
  check_command->add_option("--format", check.format, "Output: text, json, sarif or github")
      ->check(CLI::IsMember({"text", "json", "sarif", "github"}));
  check_command->add_flag("--deny-warnings", check.deny_warnings, "Exit 1 on warnings too");
  check_command
      ->add_option("--max-exception-days", check.max_exception_days,
                   "Longest an exception may run past today (default 90)")
      ->check(bounded(1, 36600));
  check_command->add_flag("--allow-outside-imports", check.allow_outside_imports,
                          "Allow absolute imports and files outside the policy's folder and the import path");

  lint.lsp_command = app.add_subcommand(
      "lsp", "Serve editors over the Language Server Protocol on stdin/stdout: diagnostics, formatting, definitions");

  FmtArguments& fmt = lint.fmt;
  lint.fmt_command = app.add_subcommand("fmt", "Print policy files in the canonical layout");
  lint.fmt_command
      ->add_option("paths", fmt.paths, "Policy files or folders (every *.allot below); `-` reads standard input")
      ->check(kPath)
      ->required();
  auto* check_flag = lint.fmt_command->add_flag("--check", fmt.check, "Exit 1 and name the files that would change");
  auto* write_flag =
      lint.fmt_command->add_flag("--write", fmt.write, "Rewrite the files in place")->excludes(check_flag);
  lint.fmt_command
      ->add_flag("--diff", fmt.diff, "Print what --write would change as a unified diff; exit 1 when it would")
      ->excludes(check_flag)
      ->excludes(write_flag);
}

std::optional<int> parse_command_line(CLI::App& app, LintCommands& lint, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // `allot chek`: a misspelt command is named, with the nearest one.
    std::vector<std::string> names;
    for (const CLI::App* command : app.get_subcommands(std::function<bool(CLI::App*)>()))
      names.push_back(command->get_name());
    if (argc > 1 && argv[1][0] != '-' && std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      const std::string near = support::nearest_name(argv[1], names);
      std::cerr << fmt::format("{}: unknown command `{}`{} (`{} help` lists the commands)\n", app.get_name(), argv[1],
                               near.empty() ? "" : fmt::format("; did you mean `{}`?", near), app.get_name());
      return 2;
    }
    // `allot check --formt json`: a misspelt flag is named, with the nearest one the command has.
    if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
      // The flags of the app and of every command given (`import slurm` nests one in another).
      std::vector<std::string> flags;
      const CLI::App* command = &app;
      std::vector<const CLI::App*> scopes = {&app};
      for (std::size_t s = 0; s < scopes.size(); ++s) {
        for (const CLI::Option* option : scopes[s]->get_options()) {
          for (const std::string& name : option->get_lnames()) flags.push_back("--" + name);
        }
        for (const CLI::App* sub : scopes[s]->get_subcommands([](const CLI::App*) { return true; })) {
          if (sub->parsed()) {
            scopes.push_back(sub);
            command = sub;
          }
        }
      }
      for (int i = 1; i < argc; ++i) {
        const std::string word = std::string(argv[i]).substr(0, std::string(argv[i]).find('='));
        if (word.size() < 3 || word.compare(0, 2, "--") != 0) continue;
        if (std::find(flags.begin(), flags.end(), word) != flags.end()) continue;
        const std::string near = support::nearest_name(word, flags);
        std::cerr << fmt::format("{}: unknown option `{}`{}\n", app.get_name(), word,
                                 near.empty() ? fmt::format(" (`{} {} --help` lists them)", app.get_name(),
                                                            command == &app ? "" : command->get_name())
                                              : fmt::format("; did you mean `{}`?", near));
        return 2;
      }
    }
    const int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  set_import_folders(lint.import_folders);
  if (lint.help_command->parsed()) {
    // The whole command's help, not the `help` subcommand's own (App::help picks the parsed one).
    std::cout << (lint.man ? manual_page(app)
                           : app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal));
    return 0;
  }
  if (lint.completion_command->parsed()) {
    std::cout << bash_completion(app);
    return 0;
  }
  return std::nullopt;
}

namespace {

// The commands of `app` a user runs, in the order defined.
std::vector<const CLI::App*> commands_of(const CLI::App& app) {
  std::vector<const CLI::App*> commands;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    commands.push_back(command);
  }
  return commands;
}

// Text for troff: backslashes escaped, hyphens as minus signs (so options copy
// as typed), and a line never starting with a control character.
std::string troff(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
  return out;
}

// An option as a user types it: its long and short names, and VALUE unless it is a flag.
std::string option_synopsis(const CLI::Option& option) {
  std::string names;
  for (const std::string& name : option.get_snames()) names += (names.empty() ? "-" : ", -") + name;
  for (const std::string& name : option.get_lnames()) names += (names.empty() ? "--" : ", --") + name;
  if (option.get_positional()) return "<" + option.get_name() + ">";
  return option.get_expected_min() == 0 ? names : names + " <VALUE>";
}

std::vector<std::string> long_options(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

}  // namespace

std::string manual_page(const CLI::App& app) {
  const std::string name = app.get_name();
  std::string upper = name;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string out = fmt::format(".TH {} 1 \"\" \"{}\" \"Allot\"\n", troff(upper), troff(version_text()));
  const std::string& description = app.get_description();  // "allot: what it is"
  const std::size_t colon = description.find(": ");
  out += fmt::format(".SH NAME\n{} \\- {}\n", troff(name),
                     troff(colon == std::string::npos ? description : description.substr(colon + 2)));
  out += fmt::format(".SH SYNOPSIS\n.B {}\n[\\fB\\-I\\fR \\fIDIR\\fR]... \\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n",
                     troff(name));
  out += ".SH DESCRIPTION\n" + troff(app.get_description()) +
         ". Every command exits 0 on success, 1 when the input has problems, and 2 on a usage or I/O failure.\n";
  out += ".SH GLOBAL OPTIONS\n";
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_lnames().empty() && option->get_snames().empty()) continue;
    out += fmt::format(".TP\n.B {}\n{}\n", troff(option_synopsis(*option)), troff(option->get_description()));
  }
  out += ".SH COMMANDS\n";
  for (const CLI::App* command : commands_of(app)) {
    out += fmt::format(".SS {}\n{}.\n", troff(name + " " + command->get_name()), troff(command->get_description()));
    for (const CLI::Option* option : command->get_options()) {
      if (option->get_name() == "--help" || option->get_lnames() == std::vector<std::string>{"help"}) continue;
      out += fmt::format(".TP\n.B {}\n{}\n", troff(option_synopsis(*option)), troff(option->get_description()));
    }
  }
  out +=
      ".SH ENVIRONMENT\n.TP\n.B ALLOT_PATH\nColon-separated folders imports are looked up in, after the \\-I folders "
      "and before the stdlib.\n.TP\n.B NO_COLOR\nWhen set, no colour is printed.\n";
  out += ".SH FILES\n.TP\n.I share/allot/stdlib\nThe standard library, beside the binary's bin/ folder.\n";
  out +=
      ".SH SEE ALSO\nThe documentation in share/doc/allot: README.md, LANGUAGE.md, TESTING.md, DIFF.md, "
      "INSTALL.md.\n";
  return out;
}

std::string bash_completion(const CLI::App& app) {
  const std::string name = app.get_name();
  std::string function = "_" + name;
  for (char& c : function) c = c == '-' ? '_' : c;
  std::string commands;
  for (const CLI::App* command : commands_of(app)) commands += (commands.empty() ? "" : " ") + command->get_name();
  std::string global;
  for (const std::string& option : long_options(app)) global += " " + option;
  std::string out = fmt::format(
      "# bash completion for {0} (generated by `{0} completion bash`)\n"
      "{1}() {{\n"
      "  local cur=\"${{COMP_WORDS[COMP_CWORD]}}\" command=\"\" i\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case \"${{COMP_WORDS[i]}}\" in\n"
      "      -I|--import-path) ((i++)) ;;\n"
      "      -*) ;;\n"
      "      *) command=\"${{COMP_WORDS[i]}}\"; break ;;\n"
      "    esac\n"
      "  done\n"
      "  if [[ -z \"$command\" ]]; then\n"
      "    COMPREPLY=($(compgen -W \"{2} -I{3}\" -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  local options=\"\"\n"
      "  case \"$command\" in\n",
      name, function, commands, global);
  for (const CLI::App* command : commands_of(app)) {
    std::string options;
    for (const std::string& option : long_options(*command)) options += (options.empty() ? "" : " ") + option;
    out += fmt::format("    {}) options=\"{}\" ;;\n", command->get_name(), options);
  }
  out += fmt::format(
      "  esac\n"
      "  if [[ \"$cur\" == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
      "  else\n"
      "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "  fi\n"
      "}}\n"
      "complete -o filenames -F {} {}\n",
      function, name);
  return out;
}

std::optional<int> run_lint_command(const LintCommands& lint) {
  if (lint.check_command->parsed()) return run_check(lint.check);
  if (lint.fmt_command->parsed()) return run_fmt(lint.fmt);
  if (lint.lsp_command->parsed()) return run_lsp();
  return std::nullopt;
}

}  // namespace allot::cli
