// The charts as a reader sees them: a threshold sits where the y axis says its
// value is, dashed lines are dashed in the key too, labels are escaped, and a
// chart with nothing to draw still says why.
#include <catch2/catch.hpp>

#include <string>

#include "allot/svg_plot.h"

namespace {

using namespace allot::plot;

// The number in `attribute="..."` of the first element after `at` that has it.
double attribute_after(const std::string& svg, std::size_t at, const std::string& attribute) {
  const std::size_t start = svg.find(attribute + "=\"", at);
  REQUIRE(start != std::string::npos);
  return std::stod(svg.substr(start + attribute.size() + 2));
}

// The y of the grid line whose tick reads `label` ("80%").
double tick_y(const std::string& svg, const std::string& label) {
  const std::size_t text = svg.find(">" + label + "</text>");
  REQUIRE(text != std::string::npos);
  const std::size_t line = svg.rfind("<line", text);
  return attribute_after(svg, line, "y1");
}

PlotLine line(const std::string& label, std::vector<double> y, bool dashed = false) {
  PlotLine plotted{label, series_color(0), {}, std::move(y), dashed};
  for (std::size_t i = 0; i < plotted.y.size(); ++i) plotted.x.push_back(static_cast<double>(i));
  return plotted;
}

}  // namespace

TEST_CASE("a threshold is drawn at its value on the y axis, dashed and labelled", "[plot]") {
  struct Case {
    double threshold;
    std::vector<double> y;
    const char* tick;  // the y tick at the threshold's value
  };
  for (const Case& c : {Case{0.6, {0.2, 0.9, 0.7}, "60%"}, Case{1.0, {0.4, 0.6}, "100%"},
                        Case{2.0, {0.5, 1.5}, "200%"}}) {  // above every point: the axis reaches it
    INFO(c.tick);
    PlotOptions options;
    options.title = "delivery";
    options.y_format = AxisFormat::percent;
    options.thresholds = {{c.threshold, "share_delivery >= " + std::string(c.tick)}};
    const std::string svg = line_chart({line("a", c.y)}, options);
    const std::size_t threshold = svg.find(R"(class="threshold")");
    REQUIRE(threshold != std::string::npos);
    const std::size_t element = svg.rfind("<line", threshold);
    CHECK(attribute_after(svg, element, "y1") == Approx(tick_y(svg, c.tick)));
    CHECK(attribute_after(svg, element, "y2") == Approx(tick_y(svg, c.tick)));
    CHECK_THAT(svg, Catch::Matchers::Contains(">share_delivery &gt;= " + std::string(c.tick) + "</text>"));
  }
}

TEST_CASE("dashed lines are dashed in the legend, and labelled ends tell lines apart without colour", "[plot]") {
  PlotOptions options;
  options.title = "t";
  options.label_ends = true;
  const std::string svg = line_chart({line("delivered", {1, 2}), line("owed", {2, 2}, true)}, options);
  const std::size_t dashed_key = svg.find(R"(class="key" stroke-dasharray="4 2"/>)");
  REQUIRE(dashed_key != std::string::npos);
  CHECK(svg.substr(svg.find(R"(class="legend">)", dashed_key), 20) == R"(class="legend">owed<)");
  CHECK_THAT(svg, Catch::Matchers::Contains(R"(class="end-label">delivered<)"));
  CHECK_THAT(svg, !Catch::Matchers::Contains(R"(class="end-label">owed<)"));  // the dashed line is the key's
  CHECK_THAT(svg, Catch::Matchers::Contains("<title>owed</title>"));
}

TEST_CASE("a line with no points is a legend entry only", "[plot]") {
  const std::string svg = line_chart({line("a", {1, 2}), line("dashed: owed", {}, true)}, PlotOptions{});
  CHECK_THAT(svg, Catch::Matchers::Contains(">dashed: owed</text>"));
  CHECK(svg.find("<path") == svg.rfind("<path"));  // one path: the line with points
}

TEST_CASE("text is escaped and a chart with nothing to draw says why", "[plot]") {
  const std::string svg = message_chart("a <b> & \"c\"", "no history yet");
  CHECK(svg.rfind(R"(<svg xmlns="http://www.w3.org/2000/svg")", 0) == 0);
  CHECK_THAT(svg, Catch::Matchers::Contains(R"(aria-label="a &lt;b&gt; &amp; &quot;c&quot;")"));
  CHECK_THAT(svg, Catch::Matchers::Contains(">no history yet</text></svg>"));
}

TEST_CASE("the chart style follows the page's theme and touches only charts", "[plot]") {
  const std::string style = chart_style();
  CHECK_THAT(style, Catch::Matchers::Contains("color:var(--fg,#222)") && Catch::Matchers::Contains("currentColor"));
  // Every rule is under .chart: a page's own .legend or .note stays as it is.
  for (std::size_t at = 0; at < style.size();) {
    const std::size_t end = style.find('}', at);
    const std::string selectors = style.substr(at, style.find('{', at) - at);
    INFO(selectors);
    for (std::size_t start = 0; start < selectors.size();) {
      const std::size_t comma = std::min(selectors.find(',', start), selectors.size());
      CHECK(selectors.substr(start, 6) == ".chart");
      start = comma + 1;
    }
    at = end + 1;
  }
}

TEST_CASE("a date axis ticks days over two days or more, and times of day under that", "[plot]") {
  struct Case {
    double hours;                      // the span drawn
    std::vector<const char*> visible;  // tick and unit texts a reader sees
    const char* absent;
  };
  const double monday = 1795996800;  // 2026-11-30T00:00:00Z
  for (const Case& c : {Case{72, {">Mon 11-30<", ">Wed 12-02<", ">date (UTC)<"}, ":00<"},
                        Case{240, {">11-30<", ">12-02<"}, ">Mon 11-30<"},
                        Case{1, {">00:10<", ">00:30<", ">date (UTC), Mon 11-30<"}, ">Tue"},
                        Case{30, {">Tue 12-01<", ">18:00<"}, ">Wed"}}) {  // a midnight tick is dated
    INFO(c.hours);
    PlotOptions options;
    options.x_format = AxisFormat::dates;
    options.x_origin = monday;
    options.x_label = "date (UTC)";
    const std::string svg = line_chart({PlotLine{"a", "#000", {0, c.hours}, {1, 2}}}, options);
    for (const char* text : c.visible) CHECK_THAT(svg, Catch::Matchers::Contains(text));
    CHECK_THAT(svg, !Catch::Matchers::Contains(c.absent));
  }
}
