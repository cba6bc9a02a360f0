// The timeline of presses: a slider over every state the playground has been in, from the start
// to the latest press. It only reports which step the learner wants to see; the playground draws it.
import { t } from "./i18n.js";
import { h } from "./dom.js";
import { stepName } from "./changes.js";

export function makeTimeline(section, onView) {
  const id = `${section.dataset.panelId}-timeline`;
  const slider = h("input", { type: "range", id, min: "0", max: "0", value: "0", step: "1", disabled: "" });
  const where = h("span", { class: "timeline-where" }, t("step.start"));
  const latest = h("button", { type: "button", "data-action": "latest", hidden: "" }, t("timeline.latest"));
  const note = h("p", { class: "timeline-note", hidden: "" });
  const box = h(
    "div",
    { class: "timeline" },
    h("label", { for: id }, t("timeline.label")),
    slider,
    where,
    latest,
    note,
  );
  let total = 0;
  let at = 0;

  function show() {
    const name = stepName(at, total);
    where.textContent = t(at === total ? "timeline.now" : "timeline.viewing", { name });
    slider.setAttribute("aria-valuetext", name);
    // first: a value above the old max would be clamped to it
    slider.max = String(total);
    slider.value = String(at);
    slider.disabled = total === 0;
    // nothing to scrub before the first press
    box.hidden = total === 0;
    latest.hidden = at === total;
    note.hidden = at === total;
    note.textContent =
      at === total
        ? ""
        : t(total - at === 1 ? "timeline.past.one" : "timeline.past.many", { name: stepName(at), n: total - at });
    box.classList.toggle("past", at !== total);
  }

  slider.addEventListener("input", () => {
    at = Number(slider.value);
    show();
    onView(at);
  });
  latest.addEventListener("click", () => {
    at = total;
    const hadFocus = document.activeElement === latest;
    // hides this button: the focus goes to the slider, not to the page
    show();
    if (hadFocus) slider.focus();
    onView(at);
  });
  show();
  return {
    el: box,
    // The playground moved on (a press, undo, reset or open): the latest step is in view.
    setTotal(n) {
      total = n;
      at = n;
      show();
    },
    // Put step k on view, as the slider would.
    view(k) {
      at = Math.max(0, Math.min(k, total));
      show();
      onView(at);
    },
    get viewing() {
      return at;
    },
    get total() {
      return total;
    },
    get past() {
      return at !== total;
    },
  };
}
