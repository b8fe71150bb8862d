#include "tools/cli/cli_outline.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string_view>

namespace ad::cli {

namespace {

bool visible(const CLI::App& sub) { return !sub.get_name().empty() && !sub.get_group().empty(); }

// The options parsed at app's level: its own and those of its option groups
// (nameless sub-apps), without the groups' own help flags.
std::vector<const CLI::Option*> options_of(const CLI::App& app) {
  auto all = app.get_options();
  for (const CLI::App* group : app.get_subcommands([](const CLI::App*) { return true; }))
    if (group->get_name().empty())
      for (const CLI::Option* o : group->get_options())
        if (o != group->get_help_ptr() && o != group->get_help_all_ptr())
          all.push_back(o);
  return all;
}

void walk(const CLI::App& app, const std::string& prefix, std::vector<command_entry>& out,
          std::vector<const CLI::App*>* apps = nullptr) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return visible(*s); })) {
    std::string path = prefix.empty() ? sub->get_name() : prefix + " " + sub->get_name();
    out.push_back({path, sub->get_description()});
    if (apps)
      apps->push_back(sub);
    walk(*sub, path, out, apps);
  }
}

// A word safe inside a double-quoted bash string and a compgen -W list.
bool plain_word(const std::string& w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("._,:/+@%-").find(c) != std::string_view::npos;
  });
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words)
    out += (out.empty() ? "" : " ") + w;
  return out;
}

// What the value of an option completes to: nothing (a number), file names,
// or a fixed set (CLI11 writes IsMember's set as {a,b,c} into the type name).
struct value_completion {
  enum class kind { nothing, files, choices } what = kind::files;
  std::string choices; // space-separated
};

value_completion value_completion_of(const CLI::Option& o) {
  std::string type = o.get_type_name();
  auto open = type.find('{');
  auto close = type.find('}', open == std::string::npos ? 0 : open);
  if (open != std::string::npos && close != std::string::npos) {
    std::vector<std::string> choices;
    std::stringstream list(type.substr(open + 1, close - open - 1));
    for (std::string c; std::getline(list, c, ',');) {
      if (!plain_word(c))
        return {};
      choices.push_back(c);
    }
    return {value_completion::kind::choices, join(choices)};
  }
  // CLI11's own number types, and "N" of add_number_option (number_option.hpp).
  std::string base = type.substr(0, type.find(':'));
  if (base == "INT" || base == "UINT" || base == "FLOAT" || base == "NUMBER" || base == "N")
    return {value_completion::kind::nothing, ""};
  return {};
}

struct command_table {
  std::string path;
  std::vector<std::string> subs, opts, valued;
  std::vector<std::pair<std::string, value_completion>> values; // by option name
  bool positional = false;
};

command_table table_of(const CLI::App& app, const std::string& path) {
  command_table t;
  t.path = path;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return visible(*s); }))
    t.subs.push_back(sub->get_name());
  for (const CLI::Option* o : options_of(app)) {
    if (o->get_group().empty())
      continue;
    if (o->get_positional() && o->get_lnames().empty() && o->get_snames().empty()) {
      t.positional = true;
      continue;
    }
    std::vector<std::string> names;
    for (const auto& s : o->get_snames())
      names.push_back("-" + s);
    for (const auto& l : o->get_lnames())
      names.push_back("--" + l);
    bool takes_value = o->get_items_expected_max() > 0;
    value_completion values = takes_value ? value_completion_of(*o) : value_completion{};
    for (const auto& n : names) {
      if (!plain_word(n))
        continue;
      t.opts.push_back(n);
      if (takes_value) {
        t.valued.push_back(n);
        t.values.emplace_back(n, values);
      }
    }
  }
  return t;
}

std::string function_name(const std::string& app_name) {
  std::string f = "_";
  for (unsigned char c : app_name)
    f += std::isalnum(c) ? static_cast<char>(c) : '_';
  return f;
}

} // namespace

std::vector<command_entry> list_commands(const CLI::App& app) {
  std::vector<command_entry> out;
  walk(app, "", out);
  return out;
}

std::string bash_completion(const CLI::App& app) {
  std::vector<command_entry> entries;
  std::vector<const CLI::App*> apps;
  walk(app, "", entries, &apps);
  std::vector<command_table> tables{table_of(app, "")};
  for (std::size_t i = 0; i < apps.size(); ++i)
    tables.push_back(table_of(*apps[i], entries[i].path));

  // The root's name is argv[0] as it was run; completion is for the command.
  const std::string name = std::filesystem::path(app.get_name()).filename().string();
  const std::string f = function_name(name);
  std::ostringstream s;
  s << "# bash completion for " << name << ", generated from its command-line definitions\n"
    << "# (`" << name << " --bash-completion`); regenerate it rather than edit it.\n\n"
    << "# Sets subs, opts, valued and positional for the command path $1.\n"
    << f << "_table() {\n  case \"$1\" in\n";
  for (const auto& t : tables)
    s << "  \"" << t.path << "\")\n    subs=\"" << join(t.subs) << "\"\n    opts=\"" << join(t.opts)
      << "\"\n    valued=\"" << join(t.valued) << "\"\n    positional=" << (t.positional ? 1 : 0)
      << " ;;\n";
  s << "  *) subs=\"\" opts=\"\" valued=\"\" positional=0 ;;\n  esac\n}\n\n"
    << "# Completes $cur as the value of option $2 of the command path $1.\n"
    << f << "_value() {\n  case \"$1|$2\" in\n";
  for (const auto& t : tables)
    for (const auto& [option, values] : t.values) {
      s << "  \"" << t.path << "|" << option << "\") ";
      switch (values.what) {
      case value_completion::kind::files:
        s << "compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- \"$cur\") ;;\n";
        break;
      case value_completion::kind::nothing:
        s << "COMPREPLY=() ;;\n";
        break;
      case value_completion::kind::choices:
        s << "COMPREPLY=($(compgen -W \"" << values.choices << "\" -- \"$cur\")) ;;\n";
        break;
      }
    }
  s << "  *) COMPREPLY=() ;;\n  esac\n}\n\n"
    << f << "() {\n"
    << "  local cur=${COMP_WORDS[COMP_CWORD]} path=\"\" word value_of=\"\" i\n"
    << "  local subs opts valued positional\n"
    << "  COMPREPLY=()\n"
    << "  # The command path from the words before the cursor: a sub-command's name\n"
    << "  # descends, an option that takes a value skips its value (bash splits\n"
    << "  # --opt=value at the =).\n"
    << "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
    << "    word=${COMP_WORDS[i]}\n"
    << "    [[ $word == = ]] && continue\n"
    << "    if [[ -n $value_of ]]; then value_of=\"\"; continue; fi\n"
    << "    " << f << "_table \"$path\"\n"
    << "    if [[ $word == -* ]]; then\n"
    << "      [[ \" $valued \" == *\" $word \"* ]] && value_of=$word\n"
    << "    elif [[ \" $subs \" == *\" $word \"* ]]; then\n"
    << "      path=\"${path:+$path }$word\"\n"
    << "    fi\n"
    << "  done\n"
    << "  " << f << "_table \"$path\"\n"
    << "  if [[ -n $value_of ]]; then\n"
    << "    [[ $cur == = ]] && cur=\"\"\n"
    << "    " << f << "_value \"$path\" \"$value_of\"\n"
    << "    return 0\n"
    << "  fi\n"
    << "  if [[ $cur == -* ]]; then\n"
    << "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
    << "    return 0\n"
    << "  fi\n"
    << "  COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
    << "  if ((positional)); then\n"
    << "    compopt -o filenames 2>/dev/null\n"
    << "    mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -f -- \"$cur\")\n"
    << "  fi\n"
    << "  return 0\n"
    << "}\n"
    << "complete -F " << f << " " << name << "\n";
  return s.str();
}

void add_outline_flags(CLI::App& app) {
  app
    .add_flag_callback(
      "--list-commands",
      [&app] {
        for (const auto& c : list_commands(app))
          std::cout << c.path << '\t' << c.description << '\n';
        throw CLI::Success();
      },
      "print every sub-command and its description (for the man pages)")
    ->group("");
  app
    .add_flag_callback(
      "--bash-completion",
      [&app] {
        std::cout << bash_completion(app);
        throw CLI::Success();
      },
      "print the bash completion script")
    ->group("");
}

} // namespace ad::cli
