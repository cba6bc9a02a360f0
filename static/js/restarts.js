// The restart lab: one situation, one restart, both eras side by side.
// A result belongs to the options it was made with: change one and the result says it is out of
// date until the learner runs again (or puts the options back). Options that cannot change the chosen
// situation (data-applies, from the panel's data) are disabled, with the reason beside them.
import { fill, h, status } from "./dom.js";
import { logLine, serverTable, wireList } from "./render.js";
import { t } from "./i18n.js";

const LABEL = (era) => t(`lab.${era}`);

function signature(form) {
  const data = new FormData(form);
  return JSON.stringify([data.get("situation"), data.getAll("variant").sort()]);
}

export function mountRestarts(section, transport) {
  const pid = section.dataset.panelId;
  const form = section.querySelector('[data-role="form"]');
  const out = section.querySelector('[data-region="sides"]');
  const announce = section.querySelector('[data-role="announce"]');
  const stale = section.querySelector('[data-role="stale"]');
  const submit = form.querySelector('button[type="submit"]');
  let shown = null; // the signature of the options the result on screen was made with
  submit.disabled = false;

  function applicable() {
    const situation = new FormData(form).get("situation");
    for (const box of form.querySelectorAll("input[data-applies]")) {
      const fits = box.dataset.applies.split(" ").includes(situation);
      // A ticked option that no longer fits is unticked: a disabled box is not sent, and a tick that
      // does nothing would claim otherwise.
      if (!fits) box.checked = false;
      box.disabled = !fits;
    }
  }

  function markStale() {
    const isStale = shown !== null && signature(form) !== shown;
    if (isStale === !stale.hidden) return;
    // "Run again" hides itself once the new result is in: the focus moves to the line that says what
    // the result is for, not to the page.
    const rerunFocused = stale.contains(document.activeElement);
    stale.hidden = !isStale;
    if (rerunFocused && !isStale) {
      const line = out.querySelector(".result-for");
      if (line) {
        line.tabIndex = -1;
        line.focus();
      }
    }
    out.classList.toggle("stale", isStale);
    if (isStale) out.setAttribute("aria-describedby", "restarts-stale");
    else out.removeAttribute("aria-describedby");
    if (isStale) status(announce, t("lab.stale"), true); // the note beside the result shows it
  }

  stale.id = "restarts-stale";
  stale.querySelector('[data-action="rerun"]').addEventListener("click", () => form.requestSubmit());
  form.addEventListener("change", () => {
    applicable();
    markStale();
  });
  applicable();
  upgradeSummary(section);

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const asked = signature(form);
    const frame = { type: "restart", panel: section.dataset.panelId, situation: data.get("situation"), variants: data.getAll("variant") };
    let answer;
    try {
      answer = await transport.send(frame);
    } catch {
      status(announce, t("lab.dropped"));
      return;
    }
    if (answer.type !== "restart") {
      status(announce, t("lab.error", { message: answer.message }));
      return;
    }
    const r = answer.result;
    const chosen = [...form.querySelectorAll('input[name="variant"]')].filter((b) => r.variants.includes(b.value));
    fill(
      out,
      h(
        "p",
        { class: "result-for meta" },
        t("lab.result_for", { situation: r.label }),
        chosen.length ? chosen.map((b) => b.parentElement.textContent.trim()).join("; ") : t("lab.none"),
        ".",
      ),
      h("div", { class: "sides" }, r.sides.map((side) =>
        h(
          "section",
          { class: `era-side era-${side.era}`, "aria-labelledby": `${pid}-${side.era} ${pid}-sep ${pid}-title` },
          h("h4", { id: `${pid}-${side.era}` }, LABEL(side.era)),
          side.steps.map((step) =>
            h("div", { class: "restart-step" },
              h("p", { class: "step-label" }, step.label),
              h("ul", { class: "lines" }, step.lines.map(logLine)),
              h("details", {}, h("summary", {}, t("lab.wire", { n: step.wire.length })), wireList(step.wire)),
            ),
          ),
          h("p", { class: "step-label" }, t("lab.afterwards")),
          serverTable(side.view.servers),
        ),
      )),
    );
    shown = asked;
    markStale();
    status(announce, t("lab.done", { situation: r.label }), true); // the result line shows it
  });
}

// The lesson sums the lab up in a table right after it. Markdown gives a bare grid; make it a
// comparison a screen reader can walk: a caption, column headers per era, the situation as each
// row's header, and a label on each cell so the table can reflow into cards on a narrow screen.
function upgradeSummary(section) {
  let node = section.nextElementSibling;
  while (node && node.tagName !== "TABLE") {
    if (/^H[12]$/.test(node.tagName) || node.matches("section, .panel")) return;
    // The lesson may keep the table behind a disclosure, one click away.
    const held = node.tagName === "DETAILS" ? node.querySelector(":scope > table") : null;
    node = held || node.nextElementSibling;
  }
  if (!node || node.caption) return;
  const table = node;
  const heads = [...table.querySelectorAll("thead th")];
  if (heads.length < 2) return;
  const eraOf = (text) => (/^legacy/i.test(text) ? "era-legacy" : /^modern/i.test(text) ? "era-modern" : null);
  const title = section.querySelector("h3")?.textContent.trim() || t("lab.restarts");
  table.prepend(h("caption", {}, t("lab.summary", { title: `${title.charAt(0).toLowerCase()}${title.slice(1)}` })));
  heads.forEach((th, i) => {
    th.setAttribute("scope", "col");
    const era = eraOf(th.textContent.trim());
    if (era) th.classList.add(era);
    if (i === 0) th.classList.add("corner");
  });
  for (const row of table.querySelectorAll("tbody tr")) {
    const cells = [...row.children];
    const first = cells[0];
    if (first && first.tagName === "TD") {
      const th = h("th", { scope: "row" });
      th.append(...first.childNodes);
      first.replaceWith(th);
    }
    cells.slice(1).forEach((td, i) => {
      const label = heads[i + 1]?.textContent.trim();
      if (label) td.dataset.label = label;
      const era = eraOf(label || "");
      if (era) td.classList.add(era);
    });
  }
  table.classList.add("compare");
  const wrap = h("div", { class: "compare-wrap" });
  table.replaceWith(wrap);
  wrap.append(table);
}
