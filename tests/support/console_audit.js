// What a person with low vision or a keyboard needs, measured in the page: every text's
// contrast against the background it is drawn on (WCAG 2.1 AA: 4.5:1, 3:1 for large
// text), every form control and button named. Run by tests/support/console.py's audit().
() => {
  const channel = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const parse = (text) => (text.match(/[\d.]+/g) || []).map(Number);
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const background = (element) => {
    for (let node = element; node; node = node.parentElement) {
      const [r, g, b, a = 1] = parse(getComputedStyle(node).backgroundColor);
      if (a > 0) return [r, g, b];
    }
    return [255, 255, 255];
  };
  const problems = [];
  for (const element of document.querySelectorAll("body *")) {
    const own = [...element.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const box = element.getBoundingClientRect();
    if (!own || !box.width || !box.height || getComputedStyle(element).visibility === "hidden") continue;
    const style = getComputedStyle(element);
    const [l1, l2] = [luminance(parse(style.color)), luminance(background(element))];
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) {
      problems.push(`contrast ${ratio.toFixed(2)}: ${element.tagName} "${element.textContent.trim().slice(0, 40)}"`);
    }
  }
  for (const control of document.querySelectorAll("input, select, textarea, button")) {
    const name = control.labels?.length ? [...control.labels].map((l) => l.textContent).join(" ")
      : control.getAttribute("aria-label") || (control.tagName === "BUTTON" ? control.textContent : "");
    if (!name.trim()) problems.push(`no label: ${control.outerHTML.slice(0, 80)}`);
  }
  return problems;
}
