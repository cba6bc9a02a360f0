// The churn stepper: moments computed by the simulation at start-up, shown one at a time.
// The moments are fetched on demand (compressed, cached for good), not inlined in the page and not at
// load: when the stepper comes within a few hundred pixels of the screen, or at the first touch, key or
// focus inside it, or before printing. A Previous or Next that comes before the moments brings them,
// the first moment first; an era chosen meanwhile applies once they are here. While they
// are on their way the status line says so; if they fail, Previous and Next are off until "Try again"
// (or a press there) fetches them again. Those words show in the moment's place; the status line that
// announces them stays visually hidden throughout, since a status moving in and out of the page's flow
// stops the browser from keeping the reader's place (scroll anchoring) when the moments arrive.
import { diffServers } from "./changes.js";
import { fill, h, status, whenNear } from "./dom.js";
import { logList, markServers, momentName, promptList, serverTable } from "./render.js";
import { need, t } from "./i18n.js";

await need("stepper"); // this module's own messages (i18n.js)

export function mountStepper(section) {
  const region = section.querySelector('[data-region="moment"]');
  const position = section.querySelector('[data-role="position"]');
  const prev = section.querySelector('[data-action="prev"]');
  const next = section.querySelector('[data-action="next"]');
  const nav = prev.closest(".stepper-nav");
  let era = section.querySelector('[data-role="era"] input:checked').value;
  let index = 0;
  let data = null;
  let loading = null;

  let retry = null; // the "Try again" button, while a failed fetch is on show

  function failed(retrying) {
    status(position, t("stepper.failed"), true); // the words show beside the way out
    const hadFocus = retrying || document.activeElement === prev || document.activeElement === next;
    retry = h("button", { type: "button", "data-action": "retry" }, t("stepper.retry"));
    retry.addEventListener("click", () => load());
    fill(region, h("p", { class: "stepper-note" }, h("span", {}, t("stepper.failed")), " ", retry));
    // Previous and Next can do nothing without the moments; the focus moves to the way out.
    prev.disabled = true;
    next.disabled = true;
    if (hadFocus) retry.focus();
  }

  function load() {
    loading ??= (async () => {
      stop();
      const retrying = retry !== null && document.activeElement === retry;
      status(position, t("stepper.loading"), true);
      if (retry) {
        retry.disabled = true; // kept in place, so a focus on it is not dropped
        retry.previousElementSibling.textContent = t("stepper.loading");
      } else {
        fill(region, h("p", { class: "stepper-note" }, t("stepper.loading")));
      }
      try {
        const resp = await fetch(section.dataset.steps);
        if (!resp.ok) throw new Error(`HTTP ${resp.status}`);
        data = await resp.json();
      } catch {
        loading = null; // the next try fetches again
        failed(retrying);
        return false;
      }
      era = section.querySelector('[data-role="era"] input:checked').value;
      retry = null;
      show();
      if (retrying) next.focus();
      return true;
    })();
    return loading;
  }
  // Run `fn` once the moments are here (at once when they are).
  const when = (fn) => (event) => {
    if (data) return fn(event);
    load().then((ok) => ok && fn(event));
  };
  // A move by a moment: before the moments are here it only brings them, so the first one the
  // learner sees is the first, not the one after a moment never shown.
  const move = (fn) => (event) => (data ? fn(event) : load());

  let unwatch;
  const early = () => load();
  function stop() {
    unwatch?.();
    section.removeEventListener("pointerdown", early);
    section.removeEventListener("focusin", early);
    window.removeEventListener("beforeprint", early);
  }
  unwatch = whenNear(section, early);
  section.addEventListener("pointerdown", early);
  section.addEventListener("focusin", early);
  window.addEventListener("beforeprint", early);

  // ``stepped``: the learner moved by a moment (a button or an arrow key), not a load or an era change.
  function show(stepped = false, eraChosen = false) {
    const steps = data[era];
    const step = steps[index];
    const v = step.view;
    const turn = v.turn;
    fill(
      region,
      h(
        "article",
        { class: "moment-card", "aria-labelledby": "churn-moment-title" },
        h("h4", { id: "churn-moment-title" }, momentName(step.number, steps.length, step.title)),
        h("p", { class: "caption" }, step.caption),
        h("div", { class: "moment-grid" },
          h("section", { "aria-labelledby": "churn-servers churn-sep churn-title" }, h("h5", { id: "churn-servers" }, t("stepper.servers")), serverTable(v.servers)),
          h("section", { "aria-labelledby": "churn-model churn-sep churn-title" },
            h("h5", { id: "churn-model" }, turn ? t("stepper.saw", { n: turn.number }) : t("stepper.will_see")),
            turn
              ? h("ul", { class: "prompt" }, turn.tools_seen.map((tool) =>
                  h("li", { class: "tool" }, h("code", {}, tool.name), h("span", { class: "subtle" }, t("stepper.from", { server: tool.server })),
                    turn.new_tools.some((n) => n.name === tool.name && n.server === tool.server) ? [" ", h("span", { class: "badge" }, t("stepper.new"))] : null)))
              : promptList(v.next_prompt),
          ),
          // Its events by name, not by the log's step numbers: the stepper counts moments only (its table's
          // "last change" names the moment too, lesson/content/stepper.py).
          h("section", { "aria-labelledby": "churn-happened churn-sep churn-title" },
            h("h5", { id: "churn-happened" }, t("stepper.happened")),
            logList(v.log, false)),
        ),
      ),
    );
    markChanges(steps[index - 1]?.view.servers, v.servers);
    // Stepped from deep in a long moment (the buttons stick to the top): the new one is read from its heading.
    // The margin is the buttons' height, measured: on a phone they wrap to two rows.
    const navBox = nav.getBoundingClientRect();
    if (stepped && region.getBoundingClientRect().top < navBox.bottom - 1) {
      region.style.scrollMarginTop = `${Math.ceil(navBox.height) + 8}px`;
      region.scrollIntoView({ block: "start" });
    }
    // At an end its button says it can do nothing but keeps the focus: disabled, it would drop the focus,
    // and handing it to the other button made the next Enter step back.
    prev.disabled = next.disabled = false; // disabled only while the moments failed to load
    prev.setAttribute("aria-disabled", String(index === 0));
    next.setAttribute("aria-disabled", String(index === steps.length - 1));
    const moment = momentName(step.number, steps.length, step.title);
    // The moment's heading shows it. After an era choice the moment is the same one: the era, said
    // first, makes the line new, so a screen reader reads it again.
    const chosen = eraChosen && section.querySelector('input[name="churn-era"]:checked')?.closest("label");
    status(position, chosen ? t("stepper.in_era", { era: chosen.textContent.trim(), moment }) : moment, true);
  }

  // What this moment changed since the one before it, marked in the table as a playground marks a
  // press's changes (and on a phone the servers it left alone fold to their name and status).
  function markChanges(before, after) {
    if (before) markServers(region, diffServers(before, after), (el, word) => el?.setAttribute("data-mark", t(`mark.${word}`)));
  }

  prev.addEventListener("click", move(() => { if (index > 0) { index -= 1; show(true); } }));
  next.addEventListener("click", move(() => { if (index < data[era].length - 1) { index += 1; show(true); } }));
  section.addEventListener("keydown", (event) => {
    // A focused table box scrolls with the arrows; its "Show every field" would be drawn away with the moment.
    if (event.target.matches("input, .table-wrap, .unfold")) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return; // Alt+Left is the browser's Back
    // The arrows belong to the stepper while the focus is in it, at its ends too: they must not
    // fall through to the page (presenter mode would change screens).
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") event.preventDefault();
    move(() => {
      if (event.key === "ArrowRight" && index < data[era].length - 1) { index += 1; show(true); }
      if (event.key === "ArrowLeft" && index > 0) { index -= 1; show(true); }
    })(event);
  });
  section.addEventListener("change", when((event) => {
    if (event.target.name === "churn-era") { era = event.target.value; show(false, true); }
  }));
}
