// The invoice page (webui/templates/invoice.html); a file, not inline: the CSP allows no inline script.
// Draw a field's evidence box on its page when the field has the focus (box units: data-width/height).
function show(input) {
  document.querySelectorAll(".box").forEach(b => b.style.display = "none");
  const bbox = (input.dataset.bbox || "").split(",").map(Number);
  const page = document.querySelector(`.page[data-page="${input.dataset.page}"]`);
  if (!page || bbox.length !== 4) return;
  const w = Number(page.dataset.width), h = Number(page.dataset.height), box = page.querySelector(".box");
  Object.assign(box.style, {left: `${bbox[0] / w * 100}%`, top: `${bbox[1] / h * 100}%`,
    width: `${(bbox[2] - bbox[0]) / w * 100}%`, height: `${(bbox[3] - bbox[1]) / h * 100}%`, display: "block"});
  page.scrollIntoView({block: "nearest"});
}
document.querySelectorAll("input[data-bbox]").forEach(i => i.addEventListener("focus", () => show(i)));
document.addEventListener("keydown", e => {
  const button = e.altKey && {s: "save", a: "approve", r: "reject"}[e.key.toLowerCase()];
  if (button) { e.preventDefault(); document.getElementById(button).click(); }
});
