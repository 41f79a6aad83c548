// `allot slurm --emit-job-submit`: a job_submit.lua for Slurm's job_submit/lua
// plugin (docs/SLURM.md "Rejecting jobs at submission") that refuses a job
// asking for more than its class allows, when it is submitted rather than
// after it has waited in the queue for a start the cycle will never give it.
//
// The script is two parts: tables written from the policy (its classes'
// limits) and the mapping file (its [[class]] rules, globs turned into Lua
// patterns), then a fixed body that finds a job's class as the adapter does
// (job_map.cpp: the first rule whose every glob matches) and checks it.
//
// What the body reads is what Slurm 22.05 gives the plugin; the names are those
// of the slurm-22-05-8-1 tag (Debian 12 ships 22.05.8):
// - src/plugins/job_submit/lua/job_submit_lua.c: job_submit() calls
//   slurm_job_submit(job_desc, part_list, submit_uid) and job_modify() calls
//   slurm_job_modify(job_desc, job_rec, part_list, modify_uid) (lines 1326-1433);
//   a message given to slurm.log_user() in job_modify is discarded (line 1426).
//   _get_job_req_field() (lines 458-703) names the job_desc fields: account,
//   default_account, default_qos, comment, name, partition, qos, user_name,
//   min_nodes, max_nodes, num_tasks, sockets_per_node, time_limit (minutes,
//   NO_VAL when not given), tres_per_job, tres_per_node (also as `gres`),
//   tres_per_socket, tres_per_task. It has no `deadline` (nor has the job
//   record), so `deadline required` cannot be checked here.
//   _part_rec_field() (lines 1059-1141) gives a partition's default_time,
//   max_time and flag_default.
// - src/lua/slurm_lua.c: slurm_lua_job_record_field() (lines 340-612) names
//   the job_rec fields read on an update (the same names, less num_tasks,
//   sockets_per_node and the defaults); _register_slurm_output_functions()
//   (lines 166-320) defines slurm.SUCCESS, ERROR, the ESLURM_* codes used
//   below, NO_VAL, NO_VAL16 and INFINITE, and log_info; it and log_user
//   (job_submit_lua.c _register_local_output_functions, line 1242) pass
//   their arguments through string.format.
// - src/common/slurm_opt.c slurm_opt_create_job_desc() (lines 6123-6144): sbatch
//   writes --gpus, --gpus-per-node, --gpus-per-socket and --gpus-per-task as
//   "gres:gpu:N" (xfmt_tres, src/common/proc_args.c 1701) and --gres with a
//   "gres:" prefix (gres_prepend_tres_type, src/common/gres.c 10120); --time=0
//   becomes INFINITE (arg_set_time_limit, 4500).
// - src/slurmctld/job_mgr.c: the plugin runs before slurmctld lowercases the
//   account (validate_job_create_req, 7968 and 7994) and before a job without
//   --time gets its partition's DefaultTime (7092), so the script does both.
#include <filesystem>
#include <set>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "allot/duration.h"
#include "allot/slurm.h"
#include "job_map.h"

namespace allot::slurm {
namespace {

// `text` as a Lua 5.1 string literal: printable ASCII as it is, everything
// else (newlines, control characters, bytes of UTF-8) as a \ddd escape, so no
// text from the files can end the literal or a comment it is quoted in.
std::string lua_string(std::string_view text) {
  std::string literal = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      literal += '\\';
      literal += c;
    } else if (byte >= 0x20 && byte < 0x7f) {
      literal += c;
    } else {
      literal += fmt::format("\\{:03d}", byte);
    }
  }
  return literal + "\"";
}

// Characters with a meaning in a Lua pattern (outside a set), escaped with `%`.
bool lua_magic(char c) { return std::string_view("^$()%.[]*+-?").find(c) != std::string_view::npos; }

// Characters with a meaning inside a Lua set `[...]`: escaped, and never the
// end of a range (a range ends in a plain character in Lua).
bool set_magic(char c) { return std::string_view("%]^-[").find(c) != std::string_view::npos; }

std::string set_member(char c) { return set_magic(c) ? std::string("%") + c : std::string(1, c); }

// POSIX character classes inside brackets, as Lua classes (both in the C locale).
std::optional<std::string_view> lua_class(std::string_view name) {
  static constexpr std::pair<std::string_view, std::string_view> kClasses[] = {
      {"alpha", "%a"}, {"digit", "%d"},  {"alnum", "%w"}, {"upper", "%u"},  {"lower", "%l"},  {"space", "%s"},
      {"punct", "%p"}, {"xdigit", "%x"}, {"cntrl", "%c"}, {"blank", " \t"}, {"print", " -~"}, {"graph", "!-~"}};
  for (const auto& [posix, lua] : kClasses) {
    if (name == posix) return lua;
  }
  return std::nullopt;
}

// The bracket expression starting at glob[at] == '[' as a Lua set, read the
// way glibc's fnmatch reads it: `!` or `^` first negates, a `]` first is a
// member, `\` escapes, `a-z` ranges, `[:class:]`. `at` ends on its `]`.
Expected<std::string, std::string> lua_set(std::string_view glob, std::size_t& at) {
  std::size_t i = at + 1;
  const bool negated = i < glob.size() && (glob[i] == '!' || glob[i] == '^');
  if (negated) ++i;
  std::string members;
  // One member character at glob[i] (after a `\`, the escaped one), moving past it.
  const auto member = [&](char& c) -> bool {
    if (glob[i] == '\\') {
      if (++i == glob.size()) return false;
    }
    c = glob[i++];
    return true;
  };
  for (bool first = true;; first = false) {
    if (i >= glob.size()) return unexpected(std::string("has a `[` without its `]`"));
    if (glob[i] == ']' && !first) break;
    if (glob[i] == '[' && i + 1 < glob.size() && (glob[i + 1] == '.' || glob[i + 1] == '=')) {
      return unexpected(std::string("uses a collating element (`[.` or `[=`), which job_submit.lua cannot express"));
    }
    if (glob[i] == '[' && i + 1 < glob.size() && glob[i + 1] == ':') {
      const std::size_t close = glob.find(":]", i + 2);
      if (close == std::string_view::npos) return unexpected(std::string("has a `[:` without its `:]`"));
      const std::string_view name = glob.substr(i + 2, close - i - 2);
      const auto lua = lua_class(name);
      if (!lua) return unexpected(fmt::format("names no character class fnmatch knows: `[:{}:]`", name));
      members += *lua;
      i = close + 2;
      continue;
    }
    char low = 0;
    if (!member(low)) return unexpected(std::string("has a `[` without its `]`"));
    // A range when a `-` follows and something other than the closing `]` comes after it.
    if (i + 1 < glob.size() && glob[i] == '-' && glob[i + 1] != ']') {
      ++i;
      char high = 0;
      if (!member(high)) return unexpected(std::string("has a `[` without its `]`"));
      if (!set_magic(low) && !set_magic(high)) {
        members += fmt::format("{}-{}", low, high);
      } else {
        // Lua cannot write this range: its ends would be read as syntax. Its characters one by one.
        for (int c = static_cast<unsigned char>(low); c <= static_cast<unsigned char>(high); ++c) {
          members += set_member(static_cast<char>(c));
        }
      }
      continue;
    }
    members += set_member(low);
  }
  at = i;
  if (members.empty()) return std::string(negated ? "." : "[^%z\x01-\xff]");  // an empty range: any, or nothing
  return fmt::format("[{}{}]", negated ? "^" : "", members);
}

// A mapping-file glob as an anchored Lua pattern that matches what fnmatch(3)
// with no flags matches (job_map.cpp's glob_matches): `*` any run of
// characters, `?` one, `[...]` a set, `\` makes the next character plain.
// Globs fnmatch would read in a way Lua cannot follow are refused.
Expected<std::string, std::string> lua_pattern(std::string_view glob) {
  if (glob.find('\0') != std::string_view::npos) return unexpected(std::string("contains a NUL character"));
  std::string pattern = "^";
  for (std::size_t i = 0; i < glob.size(); ++i) {
    const char c = glob[i];
    if (c == '*') {
      if (pattern.size() < 2 || pattern.compare(pattern.size() - 2, 2, ".*") != 0) pattern += ".*";
    } else if (c == '?') {
      pattern += '.';
    } else if (c == '[') {
      auto set = lua_set(glob, i);
      if (!set) return set;
      pattern += *set;
    } else {
      char plain = c;
      if (c == '\\') {
        if (i + 1 == glob.size()) return unexpected(std::string("ends in a `\\` that escapes nothing"));
        plain = glob[++i];
      }
      if (lua_magic(plain)) pattern += '%';
      pattern += plain;
    }
  }
  return pattern + "$";
}

// Slurm's --time form of a whole number of minutes: "D-HH:MM:00" or "HH:MM:00".
std::string slurm_time(std::int64_t minutes) {
  const std::int64_t days = minutes / 1440, hours = minutes % 1440 / 60, rest = minutes % 60;
  if (days > 0) return fmt::format("{}-{:02d}:{:02d}:00", days, hours, rest);
  return fmt::format("{:02d}:{:02d}:00", hours, rest);
}

std::string class_entry(const ClassInfo& info) {
  const auto seconds = static_cast<std::int64_t>(info.max_runtime);
  std::string entry = fmt::format("  [{}] = {{ max_gpus = {}, max_nodes = {}, max_seconds = {}", lua_string(info.name),
                                  info.max_gpus, info.max_nodes, seconds);
  if (seconds > 0) {
    entry += fmt::format(", runtime = {}, longest_time = {}", lua_string(support::format_duration(seconds)),
                         lua_string(slurm_time(seconds / 60)));
  }
  entry += " },";
  if (info.deadline_required) entry += "  -- `deadline required`: not checked here (see above)";
  return entry + "\n";
}

// One [[class]] rule as a Lua table, with its globs in a comment for the reviewer.
Expected<std::string, MapError> rule_entry(const JobMap& map, std::size_t index, const std::set<std::string>& classes) {
  const MapRule& rule = map.classes[index];
  std::string entry = fmt::format("  {{ line = {}, class = {}", rule.line, lua_string(rule.target));
  std::string globs;
  for (const std::string_view key : kConditionKeys) {
    const std::optional<std::string>& glob = condition(rule.match, key);
    if (!glob) continue;
    auto pattern = lua_pattern(*glob);
    if (!pattern) {
      return unexpected(MapError{map.file, rule.line, fmt::format("class[{}].{}", index + 1, key),
                                 fmt::format("the glob {} {}", lua_string(*glob), pattern.error())});
    }
    entry += fmt::format(", {} = {}", key, lua_string(*pattern));
    globs += fmt::format("{}{} = {}", globs.empty() ? "" : ", ", key, lua_string(*glob));
  }
  entry += " },";
  if (!classes.contains(rule.target)) entry += "  -- not a class of the policy: its jobs are left alone";
  entry += globs.empty() ? "  -- every job" : "  -- " + globs;
  return entry + "\n";
}

// The fixed part of every script; `CLASSES`, `CONDITIONS`, `RULES` and `STAMP` come before it.
constexpr std::string_view kBody = R"lua(
-- A number the job set, or nil: Slurm leaves a field it was not given at NO_VAL
-- (32-bit fields) or NO_VAL16 (16-bit ones).
local function given(value, no_val)
  if type(value) ~= "number" or value == no_val then return nil end
  return value
end

-- GPUs named in one of Slurm's TRES request strings: "gres:gpu:2" (how 22.05's
-- sbatch writes --gres, --gpus and --gpus-per-node), "gres/gpu:2",
-- "gpu:a100:2", "gres:gpu" (one), several separated by commas; other GRES
-- ("gres:mps:100") are not GPUs. The adapter counts them the same way.
local function gpus_in(tres)
  if type(tres) ~= "string" then return 0 end
  local total = 0
  for item in string.gmatch(tres, "[^,]+") do
    item = string.gsub(item, "%(.*$", "")
    item = string.gsub(item, "^gres[:/]", "")
    local parts = {}
    for part in string.gmatch(item .. ":", "([^:=]*)[:=]") do parts[#parts + 1] = part end
    if parts[1] == "gpu" then
      local count = 1
      if #parts >= 2 and string.find(parts[#parts], "^%d+$") then count = tonumber(parts[#parts]) end
      total = total + count
    end
  end
  return total
end

-- "1d2h30m" for a number of seconds, the way the policy writes durations.
local function duration(seconds)
  local text = ""
  for _, unit in ipairs({ { 86400, "d" }, { 3600, "h" }, { 60, "m" }, { 1, "s" } }) do
    local count = math.floor(seconds / unit[1])
    if count > 0 then text = text .. count .. unit[2] end
    seconds = seconds - count * unit[1]
  end
  if text == "" then return "0s" end
  return text
end

local function plural(count, noun)
  if count == 1 then return count .. " " .. noun end
  return count .. " " .. noun .. "s"
end

-- The partition a job without --partition goes to: the default one.
local function default_partition(part_list)
  for name, partition in pairs(part_list or {}) do
    if partition.flag_default == 1 then return name end
  end
  return nil
end

-- The class of the first rule whose every condition matches `job` (the six
-- strings a rule can look at), or nil when no rule does.
local function class_of(job)
  for _, rule in ipairs(RULES) do
    local matches = true
    for _, key in ipairs(CONDITIONS) do
      if rule[key] and not string.find(job[key], rule[key]) then
        matches = false
        break
      end
    end
    if matches then return rule.class end
  end
  return nil
end

-- What the rules look at, as Slurm will have it once it takes the job: the
-- default account, QOS and partition when the job names none, the account
-- lowercased. `field(name)` reads the job's fields.
local function identity(field, part_list)
  local function text(value)
    if value == nil then return "" end
    return tostring(value)
  end
  return {
    slurm_account = string.lower(text(field("account") or field("default_account"))),
    user = text(field("user_name")),
    partition = text(field("partition") or default_partition(part_list)),
    qos = text(field("qos") or field("default_qos")),
    name = text(field("name")),
    comment = text(field("comment")),
  }
end

-- What the job asks for: nodes (the larger of --nodes' bounds), GPUs (the
-- most that --gres / --gpus-per-node times nodes, --gpus, --gpus-per-task
-- times tasks and --gpus-per-socket times sockets imply), and its time limit
-- in minutes (nil without --time, slurm.INFINITE for none).
local function request(field)
  local min_nodes = given(field("min_nodes"), slurm.NO_VAL) or 1
  local max_nodes = given(field("max_nodes"), slurm.NO_VAL) or 0
  local nodes = math.max(min_nodes, max_nodes, 1)
  local tasks = given(field("num_tasks"), slurm.NO_VAL) or nodes
  local sockets = given(field("sockets_per_node"), slurm.NO_VAL16) or 1
  local gpus = math.max(gpus_in(field("tres_per_node")) * nodes, gpus_in(field("tres_per_job")),
    gpus_in(field("tres_per_task")) * tasks, gpus_in(field("tres_per_socket")) * sockets * nodes)
  local minutes = given(field("time_limit"), slurm.NO_VAL)
  if minutes == 0 then minutes = slurm.INFINITE end
  return { nodes = nodes, gpus = gpus, minutes = minutes }
end

-- Why the job may not ask for what it asks in class `name`, with the error
-- code for Slurm, or nil when it may. `size` and `time` say which limits to
-- check; `partition` (its name) and `limits` (its record in part_list, nil
-- when Slurm has none by that name) give the time a job without --time gets.
local function refusal(name, asked, partition, limits, size, time)
  local class = CLASSES[name]
  if class == nil then return nil end
  if size and class.max_gpus > 0 and asked.gpus > class.max_gpus then
    return slurm.ESLURM_ACCOUNTING_POLICY or slurm.ERROR, string.format(
      "job class `%s` allows at most %s; this job asks for %d", name, plural(class.max_gpus, "GPU"), asked.gpus)
  end
  if size and class.max_nodes > 0 and asked.nodes > class.max_nodes then
    return slurm.ESLURM_INVALID_NODE_COUNT or slurm.ERROR, string.format(
      "job class `%s` allows at most %s; this job asks for %d", name, plural(class.max_nodes, "node"), asked.nodes)
  end
  if not time or class.max_seconds == 0 then return nil end
  local minutes, whose = asked.minutes, ""
  if minutes == nil then
    -- Without --time the job gets its partition's DefaultTime, else its MaxTime (job_mgr.c).
    if limits then
      minutes = given(limits.default_time, slurm.NO_VAL) or given(limits.max_time, slurm.NO_VAL)
      whose = string.format(" (no --time: partition `%s`'s default)", partition)
    end
    if minutes == nil or minutes == slurm.INFINITE then
      return slurm.ESLURM_MISSING_TIME_LIMIT or slurm.ERROR, string.format(
        "job class `%s` allows at most %s of runtime; this job gives no --time: add --time=%s or less",
        name, class.runtime, class.longest_time)
    end
  end
  if minutes == slurm.INFINITE then
    return slurm.ESLURM_INVALID_TIME_LIMIT or slurm.ERROR, string.format(
      "job class `%s` allows at most %s of runtime; this job asks for no time limit: use --time=%s or less",
      name, class.runtime, class.longest_time)
  end
  if minutes * 60 > class.max_seconds then
    return slurm.ESLURM_INVALID_TIME_LIMIT or slurm.ERROR, string.format(
      "job class `%s` allows at most %s of runtime; this job asks for %s%s: use --time=%s or less",
      name, class.runtime, duration(minutes * 60), whose, class.longest_time)
  end
  return nil
end

local function message(text)
  return "allot: " .. text .. " (" .. STAMP .. ")"
end

-- A new job (sbatch, srun, salloc): refused when it breaks its class's limits.
function slurm_job_submit(job_desc, part_list, submit_uid)
  local function field(name) return job_desc[name] end
  local job = identity(field, part_list)
  local name = class_of(job)
  if name == nil then return slurm.SUCCESS end
  local code, why = refusal(name, request(field), job.partition, (part_list or {})[job.partition], true, true)
  if code == nil then return slurm.SUCCESS end
  -- log_user formats its arguments: the text goes in as an argument, never as the format.
  slurm.log_user("%s", message(why))
  slurm.log_info("%s", message(string.format("refused a job of user %s: %s", job.user, why)))
  return code
end

-- An update (scontrol update, and the adapter's own priority writes): the job
-- record holds the job as it is, job_desc only what the update changes. Only
-- the limits an update touches are checked, and all of them when it changes
-- what the class is found from, so a priority or hold never fails because of
-- what the job asked for before this script was installed. Slurm discards
-- log_user here (job_submit_lua.c): the reason goes to slurmctld's log, the
-- user sees the error code's text.
function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  local function changed(name)
    local value = job_desc[name]
    return value ~= nil and value ~= slurm.NO_VAL and value ~= slurm.NO_VAL16
  end
  local function field(name)
    if changed(name) then return job_desc[name] end
    return job_rec[name]
  end
  local moved = false
  for _, key in ipairs({ "account", "partition", "qos", "name", "comment" }) do
    moved = moved or changed(key)
  end
  local size = moved
  for _, key in ipairs({ "min_nodes", "max_nodes", "num_tasks", "sockets_per_node",
      "tres_per_node", "tres_per_job", "tres_per_task", "tres_per_socket" }) do
    size = size or changed(key)
  end
  local time = moved or changed("time_limit")
  if not size and not time then return slurm.SUCCESS end
  local job = identity(field, part_list)
  local name = class_of(job)
  if name == nil then return slurm.SUCCESS end
  local code, why = refusal(name, request(field), job.partition, (part_list or {})[job.partition], size, time)
  if code == nil then return slurm.SUCCESS end
  slurm.log_info("%s", message(string.format("refused an update of job %s of user %s: %s",
    tostring(job_rec.job_id), job.user, why)))
  return code
end

return slurm.SUCCESS
)lua";

}  // namespace

Expected<std::string, MapError> job_submit_lua(const PolicyTables& tables, const JobMap& map,
                                               const JobSubmitSource& source) {
  std::set<std::string> class_names;
  for (const ClassInfo& info : tables.classes) class_names.insert(info.name);
  std::string rules;
  for (std::size_t i = 0; i < map.classes.size(); ++i) {
    auto entry = rule_entry(map, i, class_names);
    if (!entry) return unexpected(entry.error());
    rules += *entry;
  }
  std::string classes;
  std::vector<std::string> unchecked;
  for (const ClassInfo& info : tables.classes) {
    classes += class_entry(info);
    if (info.deadline_required) unchecked.push_back("`" + info.name + "`");
  }
  // The file's name, not its folder: the same map gives the same script wherever it is read from.
  const std::string map_name = std::filesystem::path(map.file).filename().string();
  const std::string hash = source.policy_hash.substr(0, 12);
  std::string stamp = fmt::format("policy {} {}", tables.name, hash);
  if (!source.generated_on.empty()) stamp += ", generated " + source.generated_on;

  std::string script = fmt::format(
      "-- job_submit.lua for Slurm's job_submit/lua plugin (Slurm 22.05, Lua 5.1), written by allot {}.\n"
      "-- Policy `{}` (source sha256 {}), mapping file {}{}.\n"
      "-- Do not edit: regenerate it after every change of the policy or the mapping file:\n"
      "--   allot slurm --policy POLICY --map MAP --emit-job-submit job_submit.lua\n"
      "-- Install it beside slurm.conf, with JobSubmitPlugins=lua (docs/SLURM.md).\n"
      "--\n"
      "-- A job's class is that of the first [[class]] rule below whose every condition\n"
      "-- matches, as the adapter (`allot slurm`) finds it; a job no rule matches is left\n"
      "-- alone. A job is refused when it asks for more GPUs or more nodes than its class\n"
      "-- allows, or for a longer --time (a job without --time gets its partition's\n"
      "-- DefaultTime, else MaxTime, and is refused when that is longer or unlimited).\n"
      "-- Updates (scontrol update) are checked the same way.\n"
      "-- Not checked: `deadline required`{}. Slurm 22.05 does not show --deadline to\n"
      "-- this plugin; the adapter never starts such a job and says why.\n",
      ALLOT_VERSION, tables.name, source.policy_hash, lua_string(map_name),
      source.generated_on.empty() ? "" : ", on " + source.generated_on,
      unchecked.empty() ? " (no class of this policy requires one)" : fmt::format(" ({})", fmt::join(unchecked, ", ")));
  script += fmt::format("\nlocal STAMP = {}\n", lua_string(stamp));
  script += "\n-- The policy's classes. Limits of 0 are none; max_seconds is max_runtime.\nlocal CLASSES = {\n" +
            classes + "}\n";
  std::vector<std::string> keys;
  for (const std::string_view key : kConditionKeys) keys.push_back(lua_string(key));
  script += fmt::format(
      "\n-- The [[class]] rules of {}, in order; a rule matches a job when each of its\n"
      "-- conditions does. Each condition is the rule's shell glob (in the comment) as an\n"
      "-- anchored Lua pattern.\nlocal CONDITIONS = {{ {} }}\nlocal RULES = {{\n{}}}\n",
      lua_string(map_name), fmt::join(keys, ", "), rules);
  script += kBody;
  return script;
}

}  // namespace allot::slurm
