// The mapping file: Slurm accounts, users and jobs onto the policy's tree and
// classes; every mistake is reported with its file, line and field.
#include <catch2/catch.hpp>

#include "job_map.h"
#include "slurm_support.h"

namespace slurm_test {
namespace {

using allot::slurm::JobMap;
using allot::slurm::parse_job_map;

SlurmJob job_of(const std::string& account, const std::string& user, const std::string& partition,
                const std::string& name = "train", const std::string& comment = "") {
  SlurmJob job;
  job.account = account;
  job.user = user;
  job.partition = partition;
  job.name = name;
  job.comment = comment;
  return job;
}

const char* kMap = R"(# accounts
[adapter]
priority_floor = 5000
charge_every = "2m"
checkpoint_signal = "SIGUSR2"
write_threads = 3

[[account]]
user = "ana"
account = "exploration/ana"

[[account]]
slurm_account = "research*"
account = "exploration/{user}"

[[account]]
account = "{account}"

[[class]]
partition = "debug"
class = "debug"

[[class]]
name = "eval-*"
comment = "*deadline*"
class = "eval"

[[class]]
class = "train"
)";

}  // namespace

TEST_CASE("the first matching rule gives a job its account and class", "[slurm][map]") {
  auto map = parse_job_map(kMap, "map.toml");
  REQUIRE(map);
  CHECK(map->settings.priority_floor == 5000);
  CHECK(map->settings.charge_every == 120);
  CHECK(map->settings.checkpoint_signal == SIGUSR2);
  CHECK(map->settings.write_threads == 3);
  CHECK(parse_job_map("[[account]]\naccount = \"a\"\n[[class]]\nclass = \"c\"\n", "m.toml")->settings.write_threads ==
        8);

  using allot::slurm::account_of;
  using allot::slurm::class_of;
  CHECK(account_of(*map, job_of("product", "ana", "gpu")) == "exploration/ana");
  CHECK(account_of(*map, job_of("research2", "ben", "gpu")) == "exploration/ben");
  CHECK(account_of(*map, job_of("product", "maria", "gpu")) == "product");
  CHECK(class_of(*map, job_of("product", "maria", "debug")) == "debug");
  CHECK(class_of(*map, job_of("product", "maria", "gpu", "eval-nightly", "release deadline 12-20")) == "eval");
  CHECK(class_of(*map, job_of("product", "maria", "gpu", "eval-nightly")) == "train");
}

TEST_CASE("a job no rule matches has no account", "[slurm][map]") {
  auto map = parse_job_map(R"(
[[account]]
slurm_account = "product"
account = "product"
[[class]]
class = "train"
)",
                           "map.toml");
  REQUIRE(map);
  CHECK_FALSE(allot::slurm::account_of(*map, job_of("platform", "devi", "gpu")));
}

TEST_CASE("mapping file mistakes name the file, line and field", "[slurm][map]") {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"[[account]]\nslurm_acount = \"a\"\naccount = \"a\"\n[[class]]\nclass = \"c\"\n",
       "map.toml:2:16: account[1].slurm_acount: unknown field `slurm_acount`; did you mean `slurm_account`?"},
      {"[[account]]\nuser = \"a\"\n[[class]]\nclass = \"c\"\n",
       "map.toml:1:1: account[1].account: missing field `account`"},
      {"[[account]]\naccount = \"a\"\n",
       "map.toml:1: class: the map has no [[class]] rules; add one, the last without conditions"},
      {"[[class]]\nclass = \"c\"\n",
       "map.toml:1: account: the map has no [[account]] rules; jobs would charge no account"},
      {"[adapter]\ncheckpoint_signal = \"USR3\"\n[[account]]\naccount = \"a\"\n[[class]]\nclass = \"c\"\n",
       "map.toml:2:21: adapter.checkpoint_signal: unknown signal `USR3`; use USR1, USR2, TERM, INT, HUP or CONT"},
      {"[adapter]\ncharge_every = \"soon\"\n[[account]]\naccount = \"a\"\n[[class]]\nclass = \"c\"\n",
       "map.toml:2:16: adapter.charge_every: `charge_every` must be a duration such as \"30m\", \"1h30m\" or \"7d\", "
       "at "
       "most "
       "100 years, not \"soon\""},
      {"[adapter]\npriority_floor = 1\n[[account]]\naccount = \"a\"\n[[class]]\nclass = \"c\"\n",
       "map.toml:2:18: adapter.priority_floor: `priority_floor` must be between 2 and 4000000000, not 1"},
      {"[adapter]\nwrite_threads = 0\n[[account]]\naccount = \"a\"\n[[class]]\nclass = \"c\"\n",
       "map.toml:2:17: adapter.write_threads: `write_threads` must be between 1 and 64, not 0"},
      {"[[account]]\naccount = 3\n[[class]]\nclass = \"c\"\n",
       "map.toml:2:11: account[1].account: `account` must be a string, not an integer"},
      {"account = \"a\"\n", "map.toml:1: account: expected [[account]] tables"},
      {"[[account]\n", "map.toml:1: "},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    auto map = parse_job_map(c.text, "map.toml");
    REQUIRE_FALSE(map);
    CHECK_THAT(map.error().to_string(), Catch::StartsWith(c.error));
  }
}

TEST_CASE("a map naming accounts or classes the policy lacks is refused", "[slurm][map]") {
  const auto policy = compile(two_team_policy());
  auto map = parse_job_map("[[account]]\nslurm_account = \"a\"\naccount = \"alpa\"\n[[class]]\nclass = \"work\"\n",
                           "map.toml");
  REQUIRE(map);
  auto error = allot::slurm::check_job_map(*map, policy->tables());
  REQUIRE(error);
  CHECK(error->to_string() ==
        "map.toml:1: account[1].account: policy `two_teams` has no leaf account `alpa`; did you mean `alpha`?");

  map = parse_job_map("[[account]]\naccount = \"{account}\"\n[[class]]\nclass = \"training\"\n", "map.toml");
  REQUIRE(map);
  error = allot::slurm::check_job_map(*map, policy->tables());
  REQUIRE(error);
  CHECK(error->to_string() == "map.toml:3: class[1].class: policy `two_teams` has no class `training`");
  CHECK_FALSE(allot::slurm::check_job_map(two_team_map(), policy->tables()));
}

}  // namespace slurm_test

namespace slurm_test {

TEST_CASE("the example mapping file fits the seed's policy", "[slurm][map]") {
  const auto saas = compile_file("policies/saas.allot");
  const std::string root = ALLOT_SOURCE_DIR;
  auto map = allot::slurm::load_job_map(root + "/examples/slurm/saas_map.toml");
  INFO((map ? "" : map.error().to_string()));
  REQUIRE(map);
  CHECK_FALSE(allot::slurm::check_job_map(*map, saas->tables()));
  CHECK(allot::slurm::account_of(*map, job_of("exploration", "ben", "gpu")) == "exploration/ben");
  CHECK(allot::slurm::class_of(*map, job_of("product", "maria", "debug")) == "debug");
}

}  // namespace slurm_test
