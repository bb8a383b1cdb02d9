// `walcut completion bash|zsh`: a completion script generated from the same CLI11
// definitions that --help prints, so the two cannot drift apart.
#include <iterator>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "libwal/ignite_record.h"
#include "libwal/record.h"
#include "tools/command.h"

namespace tools {
namespace {

std::string Flags(const CLI::App& sub) {
  std::string out;
  for (const CLI::Option* opt : sub.get_options()) {
    for (const auto& s : opt->get_snames()) out += " -" + s;
    for (const auto& l : opt->get_lnames()) out += " --" + l;
  }
  return out.empty() ? out : out.substr(1);
}

// The values an option takes when they are a fixed set (CLI11's IsMember shows them in
// its type name, "TEXT:{a,b}"), space-separated; empty otherwise.
std::string Values(const CLI::Option& opt) {
  const std::string t = opt.get_type_name();
  const size_t a = t.find('{'), b = t.rfind('}');
  if (a == std::string::npos || b == std::string::npos || b < a) return {};
  std::string v = t.substr(a + 1, b - a - 1);
  for (auto& c : v) c = c == ',' ? ' ' : c;
  return v;
}

// dump --type: every record type name and alias, and "list".
std::string TypeNames() {
  std::string out = "list";
  for (const auto& t : wal::RecordTypes()) out += fmt::format(" {} {}", t.name, t.alias);
  for (unsigned id = 0; id < 256; ++id) {
    const char* name = wal::IgniteRecordTypeName(static_cast<uint8_t>(id));
    if (name != nullptr && *name != '\0' && out.find(fmt::format(" {} ", name)) == std::string::npos &&
        !out.ends_with(fmt::format(" {}", name))) {
      out += fmt::format(" {}", name);
    }
  }
  return out;
}

// `fn` names the completion function.
std::string BashScript(const CLI::App& app, const std::string& fn) {
  std::string commands, cases, values, positional, cut_commands;
  for (const CLI::App* sub : app.get_subcommands({})) {
    const std::string& name = sub->get_name();
    commands += " " + name;
    cases += "    " + name + ") opts=\"" + Flags(*sub) + "\" ;;\n";
    for (const CLI::Option* opt : sub->get_options()) {
      std::string v = Values(*opt);
      if (name == "dump" && opt->check_lname("type")) v = TypeNames();
      for (const char* takes_cut : {"cut", "before"}) {
        if (opt->check_lname(takes_cut)) {
          fmt::format_to(std::back_inserter(cut_commands), "{}\"{} --{}\"", cut_commands.empty() ? "" : "|", name,
                         takes_cut);
        }
      }
      if (v.empty()) continue;
      if (opt->get_lnames().empty()) {
        fmt::format_to(std::back_inserter(positional), "    {}) vals=\"{}\" ;;\n", name, v);
      } else {
        fmt::format_to(std::back_inserter(values), "    \"{} --{}\") vals=\"{}\" ;;\n", name, opt->get_lnames()[0], v);
      }
    }
  }
  return "# The ids of the cuts in the first directory named on the line (walcut cuts --json).\n"
         "_walcut_cut_ids() {\n"
         "  local w\n"
         "  for w in \"${COMP_WORDS[@]:2}\"; do\n"
         "    if [[ \"$w\" != -* && -d \"$w\" ]]; then\n"
         "      \"${COMP_WORDS[0]}\" cuts --json \"$w\" 2>/dev/null | grep -o '\"id\":\"[0-9a-f-]*\"' | cut -d'\"' "
         "-f4\n"
         "      return\n"
         "    fi\n"
         "  done\n"
         "}\n" +
         fn +
         "() {\n"
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" cmd=\"${COMP_WORDS[1]}\" prev=\"\" opts vals=\"\"\n"
         "  [ \"$COMP_CWORD\" -ge 1 ] && prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
         "  COMPREPLY=()\n"
         "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
         "    COMPREPLY=( $(compgen -W \"" +
         commands.substr(1) +
         " --help --version\" -- \"$cur\") )\n"
         "    return 0\n"
         "  fi\n"
         "  # The value of an option that takes one of a fixed set, or a cut id.\n"
         "  case \"$cmd $prev\" in\n" +
         values + (cut_commands.empty() ? "" : "    " + cut_commands + ") vals=\"$(_walcut_cut_ids)\" ;;\n") +
         "  esac\n"
         "  if [ -z \"$vals\" ] && [[ \"$cur\" != -* ]] && [[ \"$prev\" != -* ]]; then\n"
         "    case \"$cmd\" in\n" +
         positional +
         "    esac\n"
         "  fi\n"
         "  if [ -n \"$vals\" ]; then\n"
         "    COMPREPLY=( $(compgen -W \"$vals\" -- \"$cur\") )\n"
         "    return 0\n"
         "  fi\n"
         "  case \"$cmd\" in\n" +
         cases +
         "    *) opts=\"\" ;;\n"
         "  esac\n"
         "  if [[ \"$cur\" == -* ]]; then\n"
         "    COMPREPLY=( $(compgen -W \"$opts\" -- \"$cur\") )\n"
         "  else\n"
         "    COMPREPLY=( $(compgen -f -- \"$cur\") )\n"
         "  fi\n"
         "  return 0\n"
         "}\n"
         "complete -o filenames -F " +
         fn + " walcut\n";
}

}  // namespace

void RegisterCompletion(CLI::App& app, CommandContext& ctx) {
  auto shell = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("completion", "Print a shell completion script (bash or zsh)");
  sub->add_option("SHELL", *shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  CLI::App* root = &app;
  sub->callback([shell, root, &ctx] {
    ctx.run = [shell, root, &ctx] {
      std::string script;
      if (*shell == "bash") {
        script = "# walcut completion (generated by `walcut completion bash`)\n" + BashScript(*root, "_walcut");
      } else {
        // zsh runs the bash function through its bash-completion layer. The same file may be
        // sourced (after compinit) or installed as _walcut in a directory of $fpath, where
        // compinit autoloads it on the first completion: then it registers the function and
        // completes that first word too.
        script =
            "#compdef walcut\n"
            "# walcut completion for zsh (generated by `walcut completion zsh`): source it after\n"
            "# compinit, or install it as _walcut in a directory of $fpath.\n"
            "autoload -U +X bashcompinit && bashcompinit\n" +
            BashScript(*root, "_walcut_bash") +
            "[[ ${funcstack[1]-} == _walcut ]] && _bash_complete -o filenames -F _walcut_bash\n";
      }
      ctx.output->out->Write(script);
      return kExitOk;
    };
  });
}

}  // namespace tools
