// The restart lab: one situation, one restart, both eras side by side.
import { fill, h } from "./dom.js";
import { logLine, serverTable, wireList } from "./render.js";

const LABEL = { legacy: "Legacy (2025-11-25)", modern: "Modern (2026-07-28)" };

export function mountRestarts(section, transport) {
  const form = section.querySelector('[data-role="form"]');
  const out = section.querySelector('[data-region="sides"]');
  const announce = section.querySelector('[data-role="announce"]');
  const submit = form.querySelector('button[type="submit"]');
  submit.disabled = false;

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const frame = { type: "restart", panel: section.dataset.panelId, situation: data.get("situation"), variants: data.getAll("variant") };
    let answer;
    try {
      answer = await transport.send(frame);
    } catch {
      announce.textContent = "The connection dropped; press the button again.";
      return;
    }
    if (answer.type !== "restart") {
      announce.textContent = `Could not do that: ${answer.message}`;
      return;
    }
    const r = answer.result;
    fill(
      out,
      r.sides.map((side) =>
        h(
          "section",
          { class: `era-side era-${side.era}`, "aria-labelledby": `restart-${side.era} restarts-title` },
          h("h4", { id: `restart-${side.era}` }, LABEL[side.era]),
          side.steps.map((step) =>
            h("div", { class: "restart-step" },
              h("p", { class: "step-label" }, step.label),
              h("ul", { class: "lines" }, step.lines.map(logLine)),
              h("details", {}, h("summary", {}, `Wire messages (${step.wire.length})`), wireList(step.wire)),
            ),
          ),
          h("p", { class: "step-label" }, "Afterwards"),
          serverTable(side.view.servers),
        ),
      ),
    );
    announce.textContent = `Restarted while ${r.label}: both eras shown.`;
  });
}
