// The dashboard in a real browser: Debian's chromium, headless, driven by
// playwright-core. Run by dashboard_test.sh, which starts `allot serve` and seeds
// it; this file asserts on the DOM of every view what a user would notice if it
// broke, drives the keyboard, and keeps a full-page screenshot of each view.
//
// Usage: node dashboard_test.mjs BASE_URL OUTPUT_DIR
//   ALLOT_BROWSER_MODULES: the node_modules folder holding playwright-core
//   (default: node_modules beside this file); ALLOT_CHROMIUM: the browser
//   (default /usr/bin/chromium).
// Exit 0 when every check passed, 1 with "VIEW: what failed" otherwise.
import { createRequire } from "node:module";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const [base, out] = process.argv.slice(2);
if (!base || !out) {
  console.error("usage: node dashboard_test.mjs BASE_URL OUTPUT_DIR");
  process.exit(2);
}
const modules = process.env.ALLOT_BROWSER_MODULES || join(dirname(fileURLToPath(import.meta.url)), "node_modules");
const { chromium } = createRequire(resolve(modules, "..", "resolve-from-here.js"))("playwright-core");
mkdirSync(out, { recursive: true });

// The state dashboard_test.sh seeded.
const seeded = {
  programs: ["product", "platform", "exploration"],
  accounts: ["product", "platform", "exploration", "exploration/ana", "exploration/ben"],
  ana: ["ana-train-1", "ana-debug-1", "ana-train-2"],
  finished: "ana-train-1",
  checkpointed: "product-train-1",  // train: preemptible, protected for 2 hours
  eval: "product-eval-1",           // eval: runs to completion
};
// policies/saas.allot's release_crunch: product +10% from exploration, 2026-12-01 to 2026-12-20.
const crunchStarts = Date.parse("2026-12-01T00:00:00Z"), crunchExpires = Date.parse("2026-12-20T00:00:00Z");
const crunchInForce = Date.now() >= crunchStarts && Date.now() < crunchExpires;
const TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/;  // the dashboard's `when()`
const NUMBER = /^-?[\d,]+(\.\d+)?$/;                   // toLocaleString("en")
const number = (text) => Number(text.replace(/,/g, ""));
const percent = (text) => { const m = /^(\d+(?:\.\d+)?)%$/.exec(text); return m ? Number(m[1]) : NaN; };

let view = "setup";
class Failure extends Error {}
function check(condition, message) {
  if (!condition) throw new Failure(`${view}: ${message}`);
}
const show = (value) => JSON.stringify(value);

const problems = [];  // console errors, page errors, failed requests: none is allowed
const browser = await chromium.launch({
  executablePath: process.env.ALLOT_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox"],  // CI runs as root
});
const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "light" });
const page = await context.newPage();
page.on("console", (m) => { if (m.type() === "error") problems.push(`console error: ${m.text()} (${m.location().url || "?"})`); });
page.on("pageerror", (e) => problems.push(`uncaught exception: ${e.message}`));
page.on("requestfailed", (r) => problems.push(`request failed: ${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
page.on("response", (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()} for ${r.request().method()} ${r.url()}`); });

async function waitFor(what, predicate, arg, timeout = 10000) {
  try {
    await page.waitForFunction(predicate, arg, { timeout, polling: 100 });
  } catch (error) {
    throw new Failure(`${view}: ${what} did not happen within ${timeout / 1000} s (${error.message.split("\n")[0]})`);
  }
}
// A table as { headers, rows: [{ account, cells: [text], byName(column) }] }.
async function table(selector) {
  const { headers, rows } = await page.$eval(selector, (t) => ({
    headers: [...t.querySelectorAll("thead th")].map((th) => th.textContent.trim()),
    rows: [...t.querySelectorAll("tbody tr")].map((tr) => ({
      account: tr.dataset.account,
      placeholder: tr.cells.length === 1 && tr.cells[0].classList.contains("muted"),
      cells: [...tr.cells].map((td) => td.textContent),
    })),
  }));
  for (const r of rows) {
    r.get = (column) => {
      const i = headers.indexOf(column);
      check(i >= 0, `${selector} has no column "${column}" (columns: ${show(headers)})`);
      return (r.cells[i] ?? "").trim();
    };
  }
  return { headers, rows: rows.filter((r) => !r.placeholder), placeholder: rows.find((r) => r.placeholder)?.cells[0] };
}
const tabIds = { budget: "tab-budget", exceptions: "tab-exceptions", queue: "tab-queue", running: "tab-running",
  mine: "tab-mine", decisions: "tab-decisions", policy: "tab-policy" };
// The tab of `panel` is selected (aria-selected, tabindex 0) and only its panel is visible.
async function assertSelected(panel) {
  const state = await page.evaluate(() => [...document.querySelectorAll("[role=tab]")].map((t) => ({
    id: t.id, selected: t.getAttribute("aria-selected"), tabIndex: t.tabIndex,
    panel: t.getAttribute("aria-controls"), hidden: document.getElementById(t.getAttribute("aria-controls")).hidden,
  })));
  for (const t of state) {
    const on = t.panel === panel;
    check(t.selected === String(on), `tab ${t.id} has aria-selected=${t.selected}, expected ${on}`);
    check(t.tabIndex === (on ? 0 : -1), `tab ${t.id} has tabindex ${t.tabIndex}, expected ${on ? 0 : -1}`);
    check(t.hidden === !on, `panel #${t.panel} is ${t.hidden ? "hidden" : "shown"} while ${on ? "its tab is selected" : "another tab is"}`);
  }
  check(await page.isVisible("#" + panel), `panel #${panel} is not visible`);
}
async function assertReachable() {
  const facts = await page.textContent("#facts");
  check(!/cannot reach the service/.test(facts), `the header says: ${facts}`);
}
let shots = 0;
async function screenshot(name) {
  const file = join(out, `${String(++shots).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
async function api(path) {
  const response = await context.request.get(base + path);
  check(response.ok(), `GET ${path} answered ${response.status()}`);
  return response.json();
}
const report = (line, file) => console.log(`dashboard_test: ${view}: ${line} [${file}]`);

try {
  // ---- 1 Budgets (the view the page opens on) ----
  view = "Budgets";
  await page.goto(base + "/", { waitUntil: "load" });
  await waitFor("the first refresh (header facts and the budget tree)",
    () => document.body.dataset.updated && document.querySelectorAll("#tree-table tbody tr[data-account]").length > 0);
  await assertReachable();
  await assertSelected("budget");
  const title = await page.title();
  check(/Allot/.test(title), `the page title is ${show(title)}`);
  const facts = await page.textContent("#facts");
  check(/\(generation 2\)/.test(facts), `the header does not show the swapped policy's generation 2: ${show(facts)}`);
  check(/\d+ of 8 GPUs in use/.test(facts), `the header does not show "N of 8 GPUs in use": ${show(facts)}`);
  check(/\d+ waiting, \d+ running/.test(facts), `the header does not show "N waiting, N running": ${show(facts)}`);

  const tree = await table("#tree-table");
  const byAccount = new Map(tree.rows.map((r) => [r.account, r]));
  for (const a of seeded.accounts) check(byAccount.has(a), `the budget table has no row for ${a} (rows: ${show([...byAccount.keys()])})`);
  const ana = await page.$eval('#tree-table tr[data-account="exploration/ana"] td', (td) => td.textContent);
  check(ana.trim() === "ana", `exploration/ana's name cell reads ${show(ana)}, expected the leaf name "ana"`);
  check(/^\s+ana$/.test(ana), `exploration/ana's name is not indented under exploration: ${show(ana)}`);
  check(byAccount.get("exploration").get("Account") === "exploration", `exploration's name cell reads ${show(byAccount.get("exploration").get("Account"))}`);
  for (const r of tree.rows) {
    check(!Number.isNaN(percent(r.get("Share"))), `${r.account}'s Share cell is ${show(r.get("Share"))}, not a percentage`);
    for (const column of ["Usage", "Owed", "Delivered", "Without progress"]) {
      check(NUMBER.test(r.get(column)), `${r.account}'s ${column} cell is ${show(r.get(column))}, not a number`);
    }
    check(/^(0|–|[\d,.]+ owed to it|[\d,.]+ over)$/.test(r.get("Debt")), `${r.account}'s Debt cell is ${show(r.get("Debt"))}`);
  }
  const programShares = seeded.programs.map((p) => percent(byAccount.get(p).get("Share")));
  const shareSum = programShares.reduce((a, b) => a + b, 0);
  check(Math.abs(shareSum - 100) <= 0.5, `the programs' shares ${show(programShares)} sum to ${shareSum}%, not about 100%`);
  const leaves = percent(byAccount.get("exploration/ana").get("Share")) + percent(byAccount.get("exploration/ben").get("Share"));
  const exploration = percent(byAccount.get("exploration").get("Share"));
  check(Math.abs(leaves - exploration) <= 0.2, `ana's and ben's shares sum to ${leaves}%, not exploration's ${exploration}%`);
  const productShare = crunchInForce ? 50 : 40;
  check(percent(byAccount.get("product").get("Share")) === productShare,
    `product's share is ${byAccount.get("product").get("Share")}, expected ${productShare}% (40%${crunchInForce ? " + release_crunch's 10%" : "; release_crunch is not in force"})`);

  // Reads without colour: every bar says in words what it draws.
  const bars = await page.$$eval("#tree-table .bar", (list) => list.map((b) => ({
    account: b.closest("tr").dataset.account, role: b.getAttribute("role"), label: b.getAttribute("aria-label") })));
  check(bars.length === tree.rows.length, `${bars.length} bars for ${tree.rows.length} accounts`);
  const LABEL = /^used (\d+(?:\.\d+)?)% of the cluster's usage against a share of (\d+(?:\.\d+)?)%$/;
  for (const b of bars) {
    const m = LABEL.exec(b.label || "");
    check(b.role === "img" && m, `${b.account}'s bar has role=${b.role} aria-label=${show(b.label)}, expected "used N% of the cluster's usage against a share of N%"`);
    check(`${m[2]}%` === byAccount.get(b.account).get("Share"), `${b.account}'s bar says a share of ${m[2]}% but its Share cell says ${byAccount.get(b.account).get("Share")}`);
  }
  const productUsed = Number(LABEL.exec(bars.find((b) => b.account === "product").label)[1]);
  check(productUsed > 0, `product has run 6 GPUs since the start but its bar says it used ${productUsed}%`);
  const caption = await page.textContent("#tree-caption");
  check(/fair share/.test(caption), `the tree's caption is ${show(caption)}`);

  // The history chart: the server's SVG (GET /history.svg, the plot library's classes and style), a solid
  // delivered line and a dashed owed line per program that has samples, named at its end, and its table.
  await waitFor("the history chart's svg", () => document.querySelector("#history-chart svg.chart"));
  const chart = await page.$eval("#history-chart svg.chart", (svg) => {
    const lines = [...svg.querySelectorAll("path.line")];
    return {
      viewBox: svg.getAttribute("viewBox"), grid: svg.querySelectorAll("line.grid").length,
      delivered: lines.filter((l) => !l.getAttribute("stroke-dasharray")).map((l) => l.querySelector("title").textContent),
      owed: lines.filter((l) => l.getAttribute("stroke-dasharray")).map((l) => l.querySelector("title").textContent),
      ends: [...svg.querySelectorAll("text.end-label")].map((t) => t.textContent),
      texts: [...svg.querySelectorAll("text")].map((t) => t.textContent),
      // The chart style reached the page: lines are strokes, not filled shapes.
      fill: lines.length ? getComputedStyle(lines[0]).fill : "no line" };
  });
  check(chart.viewBox, "the history svg has no viewBox");
  check(chart.grid > 0, "the history chart has no grid lines of the plot library (line.grid)");
  check(chart.texts.includes("100%"), `the history chart has no 100% gridline label (texts: ${show(chart.texts)})`);
  check(chart.texts.includes("dashed: owed"), `the history chart's key does not say what is dashed (texts: ${show(chart.texts)})`);
  check(chart.fill === "none", `the chart's lines are filled (${chart.fill}): the chart style did not reach the page`);
  const history = await table("#history-table");
  for (const p of seeded.programs) {
    check(history.rows.some((r) => r.get("Program") === p), `the history table has no row for ${p}`);
  }
  const withSamples = history.rows.filter((r) => Number(r.get("Samples")) > 0).map((r) => r.get("Program"));
  check(withSamples.length >= 1, "no program has a delivery sample: the chart draws no line (the server samples every second)");
  check(show(chart.delivered) === show(withSamples), `the chart draws delivered lines for ${show(chart.delivered)} but ${show(withSamples)} have samples`);
  check(show(chart.owed) === show(withSamples.map((p) => p + " owed")), `the chart's dashed owed lines are ${show(chart.owed)}`);
  check(show(chart.ends) === show(withSamples), `lines are named at their ends ${show(chart.ends)}, not told apart without colour`);
  report(`${tree.rows.length} accounts (ana as a leaf under exploration), program shares ${show(programShares)} sum to ${shareSum}%, ` +
    `${bars.length} bars with numeric aria-labels (product used ${productUsed}%), history svg with ${chart.delivered.length} delivered and ${chart.owed.length} owed lines ` +
    `for ${history.rows.length} programs, header at generation 2`, await screenshot("budgets"));

  // ---- Keyboard: digits jump, arrows move along the tabs, "/" finds a job ----
  view = "Keyboard";
  await page.evaluate(() => { if (document.activeElement) document.activeElement.blur(); });
  check(await page.evaluate(() => document.activeElement === document.body), "focus is not on the body after blur");
  await page.keyboard.press("3");
  await assertSelected("queue");
  check(await page.evaluate(() => document.activeElement.id) === "tab-queue", "pressing 3 did not focus the Queue tab");
  check(await page.evaluate(() => location.hash) === "#queue", "pressing 3 did not set the address to #queue");
  await page.keyboard.press("ArrowRight");
  await assertSelected("running");
  check(await page.evaluate(() => document.activeElement.id) === "tab-running", "ArrowRight did not focus the Running tab");
  await page.keyboard.press("ArrowLeft");
  await assertSelected("queue");
  await page.keyboard.press("End");
  await assertSelected("policy");
  await page.keyboard.press("Home");
  await assertSelected("budget");
  await page.keyboard.press("/");
  await assertSelected("mine");
  const focused = await page.evaluate(() => document.activeElement.id);
  check(focused === "mine-account", `"/" focused #${focused}, not the account input #mine-account`);
  await page.keyboard.type("7");  // a digit typed into the input stays there
  await assertSelected("mine");
  check(await page.inputValue("#mine-account") === "7", "a digit typed in the account input did not stay in it");
  await page.fill("#mine-account", "");
  console.log("dashboard_test: Keyboard: 3 selects Queue (focused, panel shown, #queue), ArrowRight Running, " +
    "ArrowLeft Queue, End Policy, Home Budgets, / focuses the account input, digits typed there stay there");

  // ---- 2 Exceptions and reviews ----
  view = "Exceptions and reviews";
  await page.click("#tab-exceptions");
  await assertSelected("exceptions");
  await waitFor("the exceptions table", () => [...document.querySelectorAll("#exceptions-table tbody td:first-child")].some((td) => td.textContent === "release_crunch"));
  const exceptions = await table("#exceptions-table");
  const crunch = exceptions.rows.find((r) => r.get("Exception") === "release_crunch");
  check(/product \+10% from exploration/.test(crunch.get("Grant")), `release_crunch's grant reads ${show(crunch.get("Grant"))}`);
  check(crunch.get("In force") === (crunchInForce ? "yes" : "no"),
    `release_crunch's In force reads ${show(crunch.get("In force"))} on ${new Date().toISOString().slice(0, 10)}`);
  check(/^2026-12-20/.test(crunch.get("Expires")), `release_crunch's expiry reads ${show(crunch.get("Expires"))}`);
  const days = crunch.get("Days to expiry");
  const expected = (crunchExpires - Date.now()) / 86400000;
  const daysMatch = expected >= 0 ? /^(\d+)$/.exec(days) : /^expired (\d+) days ago$/.exec(days);
  check(daysMatch, `release_crunch's Days to expiry reads ${show(days)}, not ${expected >= 0 ? "a number of days" : '"expired N days ago"'}`);
  check(Math.abs(Number(daysMatch[1]) - Math.abs(expected)) <= 1.01, `release_crunch's Days to expiry reads ${show(days)}, expected about ${expected.toFixed(1)} days`);
  check(crunch.get("Owner") === "cto@example.com", `release_crunch's owner reads ${show(crunch.get("Owner"))}`);
  check(/Q4 release/.test(crunch.get("Reason")), `release_crunch's reason reads ${show(crunch.get("Reason"))}`);
  const reviews = await table("#reviews-table");
  for (const [account, owner] of [["product", "maria@example.com"], ["platform", "devi@example.com"], ["exploration", "kenji@example.com"]]) {
    const r = reviews.rows.find((x) => x.get("Account") === account);
    check(r, `the reviews table has no row for ${account}`);
    check(r.get("Owner") === owner, `${account}'s review owner reads ${show(r.get("Owner"))}, expected ${owner}`);
    check(/^2026-12-31/.test(r.get("Review")), `${account}'s review date reads ${show(r.get("Review"))}`);
    check(/^(\d+|overdue by \d+ days)$/.test(r.get("Days to review")), `${account}'s Days to review reads ${show(r.get("Days to review"))}`);
    check(!Number.isNaN(percent(r.get("Share"))), `${account}'s review share reads ${show(r.get("Share"))}`);
    check(r.get("Hypothesis").length > 10, `${account}'s hypothesis is empty`);
  }
  report(`release_crunch ${crunchInForce ? "in force" : "not in force"}, days to expiry "${days}"; reviews of product, platform, exploration with owners, ` +
    `${reviews.rows.find((x) => x.get("Account") === "product").get("Days to review")} days to review`, await screenshot("exceptions"));

  // ---- 3 Queue ----
  view = "Queue";
  await page.click("#tab-queue");
  await assertSelected("queue");
  await waitFor("queue rows with job buttons", () => document.querySelectorAll("#queue-table tbody button.job-link").length > 0);
  const queue = await table("#queue-table");
  const apiQueue = await api("/queue?limit=50&terms=1");
  check(queue.rows.length === apiQueue.jobs.length, `${queue.rows.length} rows for the ${apiQueue.jobs.length} waiting jobs of /queue`);
  check(queue.rows[0].get("Place") === "1", `the first row's place is ${show(queue.rows[0].get("Place"))}, not 1`);
  const ranked = queue.rows.filter((r) => r.get("Place") !== "new");
  check(ranked.length === queue.rows.length, `${queue.rows.length - ranked.length} waiting jobs are not ranked two cycles after submission`);
  ranked.forEach((r, i) => check(r.get("Place") === String(i + 1), `row ${i + 1} has place ${show(r.get("Place"))}`));
  const ranks = ranked.map((r) => r.get("Rank"));
  for (const [i, rank] of ranks.entries()) check(NUMBER.test(rank), `row ${i + 1}'s rank is ${show(rank)}`);
  for (let i = 1; i < ranks.length; i++) {
    check(number(ranks[i]) <= number(ranks[i - 1]), `place ${i + 1} has rank ${ranks[i]} above place ${i}'s ${ranks[i - 1]}: not best first`);
  }
  for (const r of ranked) {
    const terms = r.get("Rank terms");
    check(/^[\w.]+ = [^;]+(; [\w.]+ = [^;]+)+$/.test(terms) && /= -?[\d,.]+(;|$)/.test(terms),
      `${r.get("Job")}'s rank terms read ${show(terms)}, expected "term = value; …" with numbers`);
    check(seeded.accounts.includes(r.get("Account")), `${r.get("Job")}'s account reads ${show(r.get("Account"))}`);
    check(["train", "debug", "eval"].includes(r.get("Class")), `${r.get("Job")}'s class reads ${show(r.get("Class"))}`);
    check(/^\d+$/.test(r.get("GPUs")) && Number(r.get("GPUs")) >= 1, `${r.get("Job")}'s GPUs read ${show(r.get("GPUs"))}`);
    check(/^(\d+s|\d+m|\d+h \d+m|\d+d \d+h)$/.test(r.get("Waiting")), `${r.get("Job")}'s waiting time reads ${show(r.get("Waiting"))}`);
  }
  const pageText = await page.textContent("#queue-page");
  check(pageText === `1–${queue.rows.length} of ${apiQueue.total}`, `the pager reads ${show(pageText)}, expected "1–${queue.rows.length} of ${apiQueue.total}"`);
  check(await page.isDisabled("#queue-prev"), "Previous page is enabled on the first page");

  // Enter on a job opens its explanation; a click on another replaces it.
  const first = queue.rows[0].get("Job").replace(/\s*blocked$/, "");
  let opened = false;
  for (let attempt = 0; attempt < 3 && !opened; attempt++) {  // a refresh may replace the row under the key press
    await page.focus("#queue-table tbody tr:first-child button.job-link");
    await page.keyboard.press("Enter");
    opened = await page.waitForFunction((id) => !document.querySelector("#job-detail").hidden &&
      document.querySelector("#job-detail h2")?.textContent.startsWith(id + ":"), first, { timeout: 4000 }).then(() => true, () => false);
  }
  check(opened, `Enter on ${first} did not open #job-detail with its heading`);
  let detail = await page.evaluate(() => ({ heading: document.querySelector("#job-detail h2").textContent,
    text: document.querySelector("#job-detail pre")?.textContent || "", focused: document.activeElement.id }));
  check(detail.heading === `${first}: pending`, `the detail heading reads ${show(detail.heading)}, expected "${first}: pending"`);
  check(/\brank/i.test(detail.text), `${first}'s explanation does not mention its rank: ${show(detail.text.slice(0, 300))}`);
  check(detail.focused === "job-detail", `focus is on #${detail.focused}, not on the opened #job-detail`);
  const firstExplain = detail.text;
  const second = queue.rows.length > 1 ? queue.rows[1].get("Job").replace(/\s*blocked$/, "") : null;
  if (second) {
    await page.click(`#queue-table tbody button.job-link:text-is("${second}")`);
    await waitFor(`the detail of ${second} after a click`, (id) => document.querySelector("#job-detail h2")?.textContent.startsWith(id + ":"), second);
    detail = await page.evaluate(() => ({ heading: document.querySelector("#job-detail h2").textContent,
      text: document.querySelector("#job-detail pre")?.textContent || "" }));
    check(/\brank/i.test(detail.text), `${second}'s explanation (after a click) does not mention its rank: ${show(detail.text.slice(0, 300))}`);
  }
  report(`${queue.rows.length} ranked rows, place 1 first, ranks non-increasing (${ranks[0]} … ${ranks[ranks.length - 1]}), ` +
    `rank terms on each, pager "${pageText}"; Enter on ${first} opened #job-detail (${firstExplain.length} characters of explanation with its rank)` +
    (second ? `, a click opened ${second}` : ""), await screenshot("queue"));

  // ---- 4 Running ----
  view = "Running";
  await page.click("#tab-running");
  await assertSelected("running");
  await waitFor("running rows", (id) => [...document.querySelectorAll("#running-table tbody td:first-child")].some((td) => td.textContent === id), seeded.checkpointed);
  const running = await table("#running-table");
  const apiRunning = await api("/jobs?phase=running&limit=1000");
  const runningIds = running.rows.map((r) => r.get("Job"));
  check(running.rows.length === apiRunning.jobs.length, `${running.rows.length} rows for the ${apiRunning.jobs.length} running jobs (${show(runningIds)})`);
  check(!runningIds.includes(seeded.finished), `${seeded.finished} finished but is listed as running`);
  for (const r of running.rows) {
    check(TIME.test(r.get("Started")), `${r.get("Job")}'s Started reads ${show(r.get("Started"))}`);
    check(TIME.test(r.get("Protected until")), `${r.get("Job")}'s Protected until reads ${show(r.get("Protected until"))}, not a time`);
    check(/^(yes|no\b)/.test(r.get("Preemptible")), `${r.get("Job")}'s Preemptible reads ${show(r.get("Preemptible"))}, not yes or no`);
    check(r.get("Nodes") === "gpu-01", `${r.get("Job")}'s nodes read ${show(r.get("Nodes"))}`);
    check(/^\d+$/.test(r.get("GPUs")), `${r.get("Job")}'s GPUs read ${show(r.get("GPUs"))}`);
  }
  const gpus = running.rows.reduce((sum, r) => sum + Number(r.get("GPUs")), 0);
  check(gpus <= 8, `the running jobs hold ${gpus} GPUs of 8`);
  const train = running.rows.find((r) => r.get("Job") === seeded.checkpointed);
  const evalJob = running.rows.find((r) => r.get("Job") === seeded.eval);
  check(evalJob, `${seeded.eval} (an eval started in the first cycle) is not listed`);
  check(train.get("Preemptible") === "yes", `${seeded.checkpointed} (train) reads Preemptible ${show(train.get("Preemptible"))}, expected yes`);
  check(evalJob.get("Preemptible").startsWith("no"), `${seeded.eval} (eval, preemptible false) reads Preemptible ${show(evalJob.get("Preemptible"))}, expected no`);
  const protectedFor = (Date.parse(train.get("Protected until").replace(" UTC", "Z").replace(" ", "T")) -
    Date.parse(train.get("Started").replace(" UTC", "Z").replace(" ", "T"))) / 3600000;
  check(Math.abs(protectedFor - 2) < 0.01, `${seeded.checkpointed} asked for 2 h of protection; it is protected for ${protectedFor} h`);
  check(TIME.test(train.get("Next checkpoint")), `${seeded.checkpointed}'s next checkpoint reads ${show(train.get("Next checkpoint"))}`);
  check(evalJob.get("Next checkpoint") === "none promised", `${seeded.eval}'s next checkpoint reads ${show(evalJob.get("Next checkpoint"))}`);
  check(train.get("Stops at") === "–", `${seeded.checkpointed} has a stop: ${show(train.get("Stops at"))}`);
  report(`${running.rows.length} running jobs on ${gpus} GPUs, each with a protected-until time; ${seeded.checkpointed} preemptible "yes", ` +
    `protected 2 h, next checkpoint ${train.get("Next checkpoint")}; ${seeded.eval} "${evalJob.get("Preemptible")}"; ${seeded.finished} not listed`,
  await screenshot("running"));

  // ---- 5 My jobs ----
  view = "My jobs";
  await page.click("#tab-mine");
  await assertSelected("mine");
  const options = await page.$$eval("#accounts-list option", (list) => list.map((o) => o.value));
  for (const leaf of ["product", "platform", "exploration/ana", "exploration/ben"]) {
    check(options.includes(leaf), `the account suggestions ${show(options)} lack ${leaf}`);
  }
  const empty = await table("#mine-table");
  check(empty.rows.length === 0 && empty.placeholder === "choose an account", `with no account the table reads ${show(empty.placeholder ?? empty.rows.map((r) => r.cells))}`);
  await page.fill("#mine-account", "exploration/ana");
  await page.press("#mine-account", "Enter");
  await waitFor("exploration/ana's jobs", (ids) => {
    const shown = [...document.querySelectorAll("#mine-table tbody td:first-child")].map((td) => td.textContent);
    return ids.every((id) => shown.includes(id));
  }, seeded.ana);
  const mine = await table("#mine-table");
  const mineIds = mine.rows.map((r) => r.get("Job"));
  const apiMine = await api("/jobs?account=exploration%2Fana&limit=200");
  check(mineIds.every((id) => seeded.ana.includes(id)), `My jobs for exploration/ana lists other accounts' jobs: ${show(mineIds)}`);
  check(mineIds.length === seeded.ana.length && apiMine.jobs.length === seeded.ana.length,
    `My jobs lists ${show(mineIds)}; /jobs?account=exploration/ana has ${apiMine.jobs.length}; expected ${show(seeded.ana)}`);
  const finishedRow = mine.rows.find((r) => r.get("Job") === seeded.finished);
  check(finishedRow.get("Phase") === "finished", `${seeded.finished} reads phase ${show(finishedRow.get("Phase"))}, expected finished`);
  for (const r of mine.rows) {
    check(["pending", "running", "finished"].includes(r.get("Phase")), `${r.get("Job")}'s phase reads ${show(r.get("Phase"))}`);
    check(r.get("Class") === r.get("Job").split("-")[1], `${r.get("Job")}'s class reads ${show(r.get("Class"))}`);
    check(TIME.test(r.get("Submitted")), `${r.get("Job")}'s Submitted reads ${show(r.get("Submitted"))}`);
    check(r.get("Where it stands").length > 0, `${r.get("Job")} (${r.get("Phase")}) has nothing under "Where it stands"`);
  }
  report(`the account suggestions list the 4 leaves; exploration/ana shows exactly ${show(mineIds)} ` +
    `(${mine.rows.map((r) => r.get("Phase")).join(", ")}), each with where it stands`, await screenshot("my-jobs"));

  // ---- 6 Decisions ----
  view = "Decisions";
  await page.click("#tab-decisions");
  await assertSelected("decisions");
  await waitFor("decision rows", () => [...document.querySelectorAll("#decisions-table tbody tr")].some((tr) => tr.cells[2]?.textContent === "start"));
  const decisions = await table("#decisions-table");
  const seqs = decisions.rows.map((r) => Number(r.get("#")));
  for (let i = 1; i < seqs.length; i++) check(seqs[i] < seqs[i - 1], `decision #${seqs[i]} is listed after #${seqs[i - 1]}: not newest first`);
  const starts = decisions.rows.filter((r) => r.get("Decision") === "start");
  const apiDecisions = (await api("/decisions?tail=100")).decisions;
  check(decisions.rows.length === apiDecisions.length, `${decisions.rows.length} rows for the ${apiDecisions.length} decisions of /decisions?tail=100`);
  check(starts.length === apiDecisions.filter((d) => d.kind === "start").length && starts.length >= 3,
    `${starts.length} "start" rows; /decisions has ${apiDecisions.filter((d) => d.kind === "start").length}, and the first wave alone started 3 jobs`);
  for (const r of decisions.rows) {
    check(TIME.test(r.get("At")), `decision #${r.get("#")}'s time reads ${show(r.get("At"))}`);
    check(["start", "preempt", "requeue", "cancel"].includes(r.get("Decision")), `decision #${r.get("#")}'s kind reads ${show(r.get("Decision"))}`);
  }
  for (const r of starts) {
    check(/^[\w-]+$/.test(r.get("Job")), `start #${r.get("#")} names job ${show(r.get("Job"))}`);
    check(seeded.accounts.includes(r.get("Account")), `start #${r.get("#")} names account ${show(r.get("Account"))}`);
    check(/starts on `gpu-01`/.test(r.get("Reason")), `start #${r.get("#")} gives the reason ${show(r.get("Reason"))}`);
  }
  const trainStart = starts.find((r) => r.get("Job") === seeded.checkpointed);
  check(trainStart && trainStart.get("Account") === "product", `no start of ${seeded.checkpointed} by product`);
  report(`${decisions.rows.length} decisions newest first, ${starts.length} "start" rows each with job, account and reason ` +
    `(e.g. ${show(starts[starts.length - 1].get("Reason"))})`, await screenshot("decisions"));

  // ---- 7 Policy ----
  view = "Policy";
  await page.click("#tab-policy");
  await assertSelected("policy");
  await waitFor("the policy facts and history", () => document.querySelector("#policy-facts").textContent &&
    document.querySelectorAll("#policy-history tbody tr").length > 0 && document.querySelector("#policy-diff").textContent);
  const policyFacts = await page.textContent("#policy-facts");
  check(/^saas, hash [0-9a-f]{64}, generation 2$/.test(policyFacts), `the policy facts read ${show(policyFacts)}, expected "saas, hash …, generation 2"`);
  const policyHistory = await table("#policy-history");
  const swapped = policyHistory.rows.find((r) => r.get("Outcome") === "swapped");
  check(swapped, `no history row with outcome "swapped" (outcomes: ${show(policyHistory.rows.map((r) => r.get("Outcome")))})`);
  check(swapped.get("Generation") === "2", `the swap's row has generation ${show(swapped.get("Generation"))}, expected 2`);
  check(/^[0-9a-f]{12}$/.test(swapped.get("Hash")), `the swap's hash reads ${show(swapped.get("Hash"))}`);
  check(TIME.test(swapped.get("At")), `the swap's time reads ${show(swapped.get("At"))}`);
  check(policyFacts.includes(swapped.get("Hash")), `the swap's hash ${swapped.get("Hash")} is not the policy in force (${policyFacts})`);
  check(policyHistory.rows.some((r) => r.get("Generation") === "1"), `no history row for generation 1 (rows: ${show(policyHistory.rows.map((r) => r.cells))})`);
  const diff = await page.$$eval("#policy-diff span", (spans) => spans.map((s) => ({ cls: s.className, text: s.textContent.replace(/\n$/, "") })));
  const removed = diff.filter((l) => l.cls === "del" && !l.text.startsWith("---"));
  const added = diff.filter((l) => l.cls === "add" && !l.text.startsWith("+++"));
  check(removed.length === 1 && /debug => 500/.test(removed[0].text), `the diff's removed lines are ${show(removed.map((l) => l.text))}, expected the one with "debug => 500"`);
  check(added.length === 1 && /debug => 600/.test(added[0].text), `the diff's added lines are ${show(added.map((l) => l.text))}, expected the one with "debug => 600"`);
  // One evaluation: the span is found and styled in the same task (a handle could be redrawn in between).
  const diffStyle = await page.evaluate(() => getComputedStyle(document.querySelector("#policy-diff span.del")).textDecorationLine);
  check(diffStyle.includes("line-through"), `a removed line is drawn with text-decoration ${show(diffStyle)}, not struck through (it must read without colour)`);
  // A reader selecting in the diff keeps the selection across the refresh every 3 s: an
  // unchanged diff is not redrawn.
  const before = await page.evaluate(() => {
    const span = document.querySelector("#policy-diff span.del");
    window.getSelection().selectAllChildren(span);
    window.__keptDiff = span;
    return document.body.dataset.updated;
  });
  await waitFor("a refresh of the Policy view", (t) => document.body.dataset.updated !== t, before, 8000);
  const kept = await page.evaluate(() => ({ connected: window.__keptDiff.isConnected, selected: String(window.getSelection()) }));
  check(kept.connected && /debug => 500/.test(kept.selected),
    `after a refresh the diff was redrawn (line kept: ${kept.connected}, selection ${show(kept.selected)}); a reader's selection must survive`);
  const source = await page.textContent("#policy-source");
  check(/debug => 600/.test(source) && !/debug => 500/.test(source), "the source shown is not the swapped policy (debug => 600)");
  report(`"${policyFacts.replace(/hash (\w{12})\w+/, "hash $1…")}", history row generation 2 "swapped" (${swapped.get("Hash")}), ` +
    `diff ${show(removed[0].text.replace(/^-\s*/, "- "))} ${show(added[0].text.replace(/^\+\s*/, "+ "))}, source at debug => 600`, await screenshot("policy"));

  // ---- The whole page ----
  view = "Whole page";
  await assertReachable();
  check(problems.length === 0, `${problems.length} console errors or failed requests:\n  ${problems.join("\n  ")}`);
  console.log("dashboard_test: Whole page: no console error, no uncaught exception, no failed request");
  await browser.close();
} catch (error) {
  const where = error instanceof Failure ? error.message : `${view}: ${error.stack || error}`;
  console.error(`dashboard_test: FAILED: ${where}`);
  if (problems.length && view !== "Whole page") console.error(`dashboard_test: the page also logged:\n  ${problems.join("\n  ")}`);
  try { console.error(`dashboard_test: screenshot of the failure: ${await screenshot("FAILED-" + view.replace(/\W+/g, "-"))}`); } catch { /* the page is gone */ }
  await browser.close().catch(() => {});
  process.exit(1);
}
