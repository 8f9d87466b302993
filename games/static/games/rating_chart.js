// The profile's rating charts (tournaments/ratings/_chart.html) fit their words, whatever fonts
// the player has: the server leaves margins for common fonts, but how wide "1536" is drawn
// depends on the font the browser picks (and site.css sizes the words by the chart's width).
// So the drawing's viewBox grows to hold every label as measured here; it is measured again
// once the web fonts are in and whenever the width, and with it the font size, changes.
(() => {
  "use strict";
  const PAD = 2; // SVG units between a word and the drawing's edge

  const fit = (svg) => {
    if (!svg.dataset.viewBox) svg.dataset.viewBox = svg.getAttribute("viewBox");
    const [x, y, width, height] = svg.dataset.viewBox.trim().split(/[\s,]+/).map(Number);
    let left = x, top = y, right = x + width, bottom = y + height;
    for (const text of svg.querySelectorAll("text")) {
      const box = text.getBBox();
      if (!box.width) continue;
      left = Math.min(left, box.x - PAD);
      top = Math.min(top, box.y - PAD);
      right = Math.max(right, box.x + box.width + PAD);
      bottom = Math.max(bottom, box.y + box.height + PAD);
    }
    const round = (n) => Math.round(n * 10) / 10;
    svg.setAttribute("viewBox", [left, top, right - left, bottom - top].map(round).join(" "));
  };

  const fitAll = () => document.querySelectorAll(".rating-chart__svg").forEach(fit);
  fitAll();
  if (document.fonts) document.fonts.ready.then(fitAll);
  window.addEventListener("resize", fitAll);
})();
