// The restart lab: one situation, one restart, both eras side by side.
// A result belongs to the options it was made with: change one and the result says it is out of
// date until the learner runs again (or puts the options back). Options that cannot change the chosen
// situation (data-applies, from the panel's data), or an HTTP server's while it runs over stdio
// (data-http-only), are disabled; each names its reason as its description (the HTTP options share one,
// said once under the stdio option).
import { fill, h, status } from "./dom.js";
import { costStrip, crossed, lineItem, plural, serverTable, wireList } from "./render.js";
import { need, t } from "./i18n.js";

// "Wire messages (10)": only what crossed the wire is counted; an item the host made or saw itself (a
// stream's end, its own error) is in the list too, counted apart, as the playground's Wire tab does.
function wireSummary(wire) {
  const on = crossed(wire);
  const off = wire.length - on;
  return off ? t("lab.wire_with_local", { n: on, local: plural(off, "local_item") }) : t("lab.wire", { n: on });
}

await need("lab"); // this module's own messages (i18n.js); its styles are linked by the lab itself

const LABEL = (era) => t(`era.${era}`);
// A step by its number, as the table's "last change" names it ("step 2: new session").
const stepLabel = (step) => h("p", { class: "step-label" }, t("lab.step", { step: step.step, label: step.label.text }));

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
  const wanted = new Set(); // the options the learner ticked, unticked only by the learner
  submit.disabled = false;

  function applicable() {
    const situation = new FormData(form).get("situation");
    const overStdio = [...form.querySelectorAll("input[data-stdio]")].some((box) => box.checked);
    for (const box of form.querySelectorAll("input[data-applies], input[data-http-only]")) {
      const fits = (!box.dataset.applies || box.dataset.applies.split(" ").includes(situation)) && !(overStdio && "httpOnly" in box.dataset);
      // A ticked option that no longer fits is unticked: a disabled box is not sent, and a tick that
      // does nothing would claim otherwise. It comes back ticked where it fits again.
      box.checked = fits && (box.checked || wanted.has(box.value));
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
  form.addEventListener("change", (event) => {
    if (event.target.name === "variant") (event.target.checked ? wanted.add(event.target.value) : wanted.delete(event.target.value));
    applicable();
    markStale();
  });
  applicable();

  // A question's own set-up, ticked for the learner: its situation, and exactly its options.
  section.querySelectorAll('[data-action="set-up"]').forEach((button, i) => {
    button.disabled = false;
    button.addEventListener("click", () => {
      const ticks = new Set(button.dataset.variants.split(" ").filter(Boolean));
      form.querySelector(`input[name="situation"][value="${CSS.escape(button.dataset.situation)}"]`).checked = true;
      wanted.clear();
      for (const box of form.querySelectorAll('input[name="variant"]')) {
        box.checked = ticks.has(box.value);
        if (box.checked) wanted.add(box.value);
      }
      applicable();
      markStale();
      submit.focus();
      // Said in full to a screen reader; in view only while no result is shown (one that is says it is
      // out of date, with its own Run again).
      const ticked = [...form.querySelectorAll('input[name="variant"]:checked')].map((box) => box.parentElement.textContent.trim());
      const situation = form.querySelector('input[name="situation"]:checked').parentElement.textContent.trim();
      status(announce, t("lab.set_up_done", { n: i + 1, situation, options: ticked.length ? ticked.join("; ") : t("lab.none") }), shown !== null);
    });
  });

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
    // Each line is said once: each era's side says only its own lines, with its wire and the table
    // afterwards, first (where the eras differ is the answer the learner is after); what a step says in
    // both eras, word for word, comes after them under "Both eras".
    const [legacy, modern] = r.sides;
    const same = legacy.steps.map((step, i) => {
      const theirs = modern.steps[i]?.label.text === step.label.text ? modern.steps[i].lines.map((l) => l.text) : [];
      return step.lines.filter((l) => theirs.includes(l.text));
    });
    const lines = (list) => h("ul", { class: "lines" }, list.map(lineItem));
    // The answer at a glance, first: what the whole restart cost on the wire in each era, as the
    // playground's bar pair, drawn even when the eras sent as many (a restart that costs nothing more).
    const whole = (side) => ({ era: side.era, lines: side.steps.flatMap((s) => s.lines), wire: side.steps.flatMap((s) => s.wire) });
    const strip = costStrip({ this: whole(legacy), other: whole(modern) }, null, "lab.cost_title", true);
    fill(
      out,
      h(
        "p",
        { class: "result-for meta" },
        t("lab.result_for", { situation: r.label }),
        chosen.length ? chosen.map((b) => b.parentElement.textContent.trim()).join("; ") : t("lab.none"),
        ".",
      ),
      r.note ? h("p", { class: "meta", "data-content": "" }, r.note) : null,
      strip ? h("div", { class: "cost" }, strip) : null,
      // The lab's question about this very set-up, if it asks one: checked here, beside what happened.
      r.question ? h("details", { class: "lab-check" }, h("summary", {}, t("lab.check", { question: r.question })), h("p", { "data-content": "" }, r.answer)) : null,
      // The situation's own steps come before the restart's, which are numbered after them.
      r.setup.length ? h("p", { class: "meta" }, t("lab.setup", { steps: r.setup.map((s) => t("lab.setup_step", { step: s.step, label: s.label.text })).join("; ") })) : null,
      h("div", { class: "sides" }, r.sides.map((side) =>
        h(
          "section",
          { class: `era-side era-${side.era}`, "aria-labelledby": `${pid}-${side.era} ${pid}-sep ${pid}-title` },
          h("h4", { id: `${pid}-${side.era}` }, LABEL(side.era)),
          side.steps.map((step, i) => {
            const own = step.lines.filter((l) => !same[i]?.some((x) => x.text === l.text));
            return h("div", { class: "restart-step" },
              stepLabel(step),
              own.length ? lines(own) : h("p", { class: "subtle" }, t("lab.nothing_else")),
              // Named with its era and step for the keyboard: tabbed to, "Wire messages (0)" twice says nothing.
              h(
                "details",
                {},
                h("summary", {}, wireSummary(step.wire), h("span", { class: "visually-hidden" }, ` (${LABEL(side.era)}, ${t("lab.step", { step: step.step, label: step.label.text })})`)),
                wireList(step.wire),
              ),
            );
          }),
          h("p", { class: "step-label" }, t("lab.afterwards")),
          serverTable(side.view.servers),
        ),
      )),
      same.some((l) => l.length)
        ? h(
            "section",
            { class: "era-both", "aria-labelledby": `${pid}-both ${pid}-sep ${pid}-title` },
            h("h4", { id: `${pid}-both` }, t("lab.both")),
            legacy.steps.map((step, i) => (same[i].length ? h("div", { class: "restart-step" }, stepLabel(step), lines(same[i])) : null)),
          )
        : null,
    );
    shown = asked;
    markStale();
    status(announce, t("lab.done", { situation: r.label }), true); // the result line shows it
    // The result is the payoff: a result that starts low on the screen (or below it) is brought up.
    if (out.getBoundingClientRect().top > window.innerHeight / 2) {
      out.style.scrollMarginTop = "0.75rem";
      out.scrollIntoView({ block: "start" });
      // Restart, above the result, goes above the screen with it (whether the scroll is smooth or not): the
      // focus goes where the eye went, to the result's first line.
      out.firstElementChild.tabIndex = -1;
      out.firstElementChild.focus({ preventScroll: true });
    }
  });
}
