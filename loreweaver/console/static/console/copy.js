// The mint panel's copy buttons. The clipboard API needs a secure page (HTTPS or
// localhost); elsewhere the text is selected for Ctrl-C instead.
document.querySelectorAll("[data-copy]").forEach((button) => {
  button.addEventListener("click", async () => {
    const source = document.getElementById(button.dataset.copy);
    const said = document.createElement("span");
    said.className = "copied";
    try {
      await navigator.clipboard.writeText(source.textContent);
      said.textContent = "copied";
    } catch (_) {
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      said.textContent = "selected: press Ctrl-C";
    }
    button.after(said);
    setTimeout(() => said.remove(), 3000);
  });
});
