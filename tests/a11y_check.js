// Run in a page by tests/test_web.py: what a page fails of WCAG AA (labels, text contrast).
() => {
  const problems = [];
  const name = (el) => (el.getAttribute('aria-label') || (el.labels && [...el.labels].map((l) => l.textContent).join(' ')) || el.textContent || '').trim();
  for (const el of document.querySelectorAll('input, select, textarea, button, a[href]')) {
    if (el.offsetParent === null && el.type !== 'hidden') continue;
    if (!name(el)) problems.push(`no label: ${el.outerHTML.slice(0, 80)}`);
  }
  const rgb = (text) => (text.match(/[\d.]+/g) || []).map(Number);
  const luminance = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (let at = el; at; at = at.parentElement) {
      const value = rgb(getComputedStyle(at).backgroundColor);
      if (value.length === 3 || (value.length === 4 && value[3] > 0)) return value.slice(0, 3);
    }
    return [255, 255, 255];
  };
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || el.offsetParent === null || el.getAttribute('aria-disabled') === 'true') continue;
    const style = getComputedStyle(el);
    const fg = rgb(style.color).slice(0, 3);
    const [a, b] = [luminance(fg), luminance(background(el))].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    const large = parseFloat(style.fontSize) >= 24 || (parseFloat(style.fontSize) >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) problems.push(`contrast ${ratio.toFixed(2)}: ${el.tagName} ${el.textContent.trim().slice(0, 30)}`);
  }
  return problems;
}
