// The invoice page of the review app (webui/templates/invoice.html). A static file, no inline
// script: the pages' Content-Security-Policy may forbid inline script.
"use strict";

const ZOOM_STEPS = [0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4];

// Draw a field's evidence box on its page when the field has the focus (box units: data-width/height).
function showEvidence(input) {
  document.querySelectorAll(".box").forEach((b) => { b.style.display = "none"; });
  const bbox = (input.dataset.bbox || "").split(",").map(Number);
  const page = document.querySelector(`.page[data-page="${input.dataset.page}"]`);
  if (!page || bbox.length !== 4) return;
  const w = Number(page.dataset.width), h = Number(page.dataset.height), box = page.querySelector(".box");
  Object.assign(box.style, {left: `${bbox[0] / w * 100}%`, top: `${bbox[1] / h * 100}%`,
    width: `${(bbox[2] - bbox[0]) / w * 100}%`, height: `${(bbox[3] - bbox[1]) / h * 100}%`, display: "block"});
  box.scrollIntoView({block: "nearest", inline: "nearest"});
}

// Zoom of the page images: a factor of the column's width; the boxes are in percent and follow.
let zoom = 1;
function setZoom(factor) {
  const pages = document.getElementById("pages"), level = document.getElementById("zoom-level");
  if (!pages) return;
  zoom = Math.min(ZOOM_STEPS[ZOOM_STEPS.length - 1], Math.max(ZOOM_STEPS[0], factor));
  pages.style.setProperty("--zoom", String(zoom));
  if (level) level.textContent = `${Math.round(zoom * 100)}%`;
}
function stepZoom(direction) {
  const next = direction > 0 ? ZOOM_STEPS.find((s) => s > zoom) : [...ZOOM_STEPS].reverse().find((s) => s < zoom);
  if (next !== undefined) setZoom(next);
}

// Keyboard: Alt+A approve, Alt+N next invoice needing attention, Alt+S save, Alt+R reject,
// Alt+Plus / Alt+Minus / Alt+0 zoom. By key position (event.code), so Option+A on a Mac works too.
const BUTTONS = {KeyA: "approve", KeyS: "save", KeyR: "reject"};
const ZOOM_KEYS = {Equal: 1, NumpadAdd: 1, Minus: -1, NumpadSubtract: -1};
function onKey(event) {
  if (!event.altKey || event.ctrlKey || event.metaKey) return;
  const button = BUTTONS[event.code] && document.getElementById(BUTTONS[event.code]);
  if (button) {
    event.preventDefault();
    button.click();
  } else if (event.code === "KeyN") {
    event.preventDefault();
    document.getElementById("next").click();
  } else if (event.code in ZOOM_KEYS) {
    event.preventDefault();
    stepZoom(ZOOM_KEYS[event.code]);
  } else if (event.code === "Digit0" || event.code === "Numpad0") {
    event.preventDefault();
    setZoom(1);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("input[data-bbox]").forEach((i) => i.addEventListener("focus", () => showEvidence(i)));
  document.addEventListener("keydown", onKey);
  const on = (id, fn) => { const el = document.getElementById(id); if (el) el.addEventListener("click", fn); };
  on("zoom-in", () => stepZoom(1));
  on("zoom-out", () => stepZoom(-1));
  on("zoom-fit", () => setZoom(1));
  document.querySelectorAll(".page img").forEach((img) => img.addEventListener("dblclick", () => stepZoom(1)));
});
