// GPU counts from the text forms Slurm 22.05 prints for nodes and jobs.
#include <catch2/catch.hpp>

#include "gres_text.h"

namespace {

struct Case {
  const char* text;
  int count;
  const char* type;
};

}  // namespace

TEST_CASE("GPU counts are read from every gres and tres form Slurm prints", "[slurm][gres]") {
  const Case cases[] = {
      {"gpu:8", 8, ""},                      // node gres
      {"gpu:h100:8(S:0-1)", 8, "h100"},      // typed, with socket affinity
      {"gpu:h100:4,gpu:a100:4", 8, "h100"},  // two types: the first names the node
      {"gpu:5(IDX:0-4)", 5, ""},             // node gres_used
      {"gpu:h100:0(IDX:N/A)", 0, "h100"},    // nothing used
      {"gres:gpu:2", 2, ""},                 // job tres_per_node (22.05)
      {"gres/gpu:2", 2, ""},                 // later releases
      {"gres:gpu:h100:2", 2, "h100"},        // typed request
      {"gres:gpu", 1, ""},                   // --gres=gpu means one
      {"gpu:2(IDX:0,3)", 2, ""},             // a comma inside the detail is not a separator
      {"gres:shard:4,gres:gpu:1", 1, ""},    // other GRES are ignored
      {"", 0, ""},
      {"craynetwork:1", 0, ""},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const allot::slurm::GpuCount count = allot::slurm::gpus_named(c.text);
    CHECK(count.count == c.count);
    CHECK(count.type == c.type);
  }
}
