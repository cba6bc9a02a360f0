// "Start over": clears this lesson's progress after a confirmation, then loads the lesson fresh. Its
// button is progress.js's, which fetches this code at the first press.
// What is cleared: each playground's log (sessionStorage, see playground.js), the quiz answers the
// page holds (localStorage, see quiz.js), the sections read and goals reached (see progress.js) and
// the answers the no-JavaScript form left in the session cookie, and what a portal keeps to resume
// from. The theme is not progress, so it stays.
import { h } from "./dom.js";
import { need, t } from "./i18n.js";
import { asideKey, local, playgroundKey, progressKey, quizKey, session } from "./store.js";
import { appUrl } from "./transport.js";

await need("startover"); // this module's own messages (i18n.js)

let opened = null; // the dialog and its safe choice, made at the first press

/** Ask, in a dialog, whether to clear this lesson's progress (`button` is Start over, `slug` the lesson). */
export function startOver(button, slug) {
  opened ??= make(button, slug);
  if (opened.inPlace) {
    opened.dialog.show();
    // The frame does not scroll itself, and a focus inside it does not scroll the portal's page: a
    // scrollIntoView does (it crosses origins). The portal makes the frame taller for the dialog a moment
    // later (a resize here), and only then can all of it come into the portal's view.
    const reveal = () => opened.dialog.open && opened.dialog.scrollIntoView({ block: "nearest" });
    reveal();
    window.addEventListener("resize", reveal, { once: true });
  } else opened.dialog.showModal();
  opened.cancel.focus({ preventScroll: opened.inPlace }); // the safe choice has the focus
}

function make(button, slug) {
  const actions = button.closest(".actions");
  const cancel = h("button", { type: "button", value: "cancel" }, t("startover.cancel"));
  const confirm = h("button", { type: "button", value: "confirm", class: "danger" }, t("startover.confirm"));
  const dialog = h(
    "dialog",
    { class: "start-over-dialog", "aria-labelledby": "start-over-title", "aria-describedby": "start-over-text" },
    h("h2", { id: "start-over-title" }, t("startover.heading")),
    // Said only where the page has a theme control (a portal's frame has none).
    h("p", { id: "start-over-text" }, document.querySelector('[data-role="theme"]') ? `${t("startover.text")} ${t("startover.theme")}` : t("startover.text")),
    h("div", { class: "buttons" }, cancel, confirm),
  );
  // In a portal's frame the frame is as tall as the lesson, so a modal dialog would open in its middle,
  // far from the button: there it opens in place, right under the button.
  const inPlace = Boolean(document.documentElement.dataset.embed);
  if (inPlace) {
    dialog.classList.add("in-place");
    actions.after(dialog);
    dialog.addEventListener("keydown", (event) => {
      if (event.key === "Escape") dialog.close();
    });
  } else {
    document.body.append(dialog);
  }

  cancel.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => button.focus());
  confirm.addEventListener("click", async () => {
    confirm.disabled = true;
    // A portal that hands progress back on the next visit forgets it too (embed.js tells it).
    window.dispatchEvent(new CustomEvent("lesson:cleared"));
    for (const section of document.querySelectorAll('[data-panel="playground"]')) {
      session.remove(playgroundKey(section.dataset.panelId));
      session.remove(asideKey(section.dataset.panelId)); // presses a scenario set aside
    }
    local.remove(quizKey(slug));
    local.remove(progressKey(slug)); // sections read, goals reached, the score reported
    try {
      await fetch(appUrl(`api/progress/${encodeURIComponent(slug)}/clear`), { method: "POST" });
    } catch {
      // The page's own progress is gone either way; only answers sent without JavaScript stay.
    }
    // In a portal's frame as tall as the lesson, the portal's page would stay where Start over was:
    // bring the lesson's top into its view first (scrollIntoView crosses origins).
    if ("parentScrolls" in document.documentElement.dataset) document.body.scrollIntoView({ block: "start" });
    window.location.replace(window.location.pathname + window.location.search);
  });
  return { dialog, cancel, inPlace };
}
