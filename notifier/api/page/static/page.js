// kube-notifier page: confirmations, the silence preview as you type, and an optional
// refresh of the view every 10 s (remembered in this browser; held while you type).
// Every value goes into the page as text (textContent), never as markup.
"use strict";

document.addEventListener("submit", (event) => {
  const question = event.target.dataset.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});

function showPreview(box, answer) {
  box.replaceChildren();
  const line = document.createElement("p");
  if (answer.error) {
    line.className = "error";
    line.textContent = answer.error;
    box.append(line);
    return;
  }
  line.textContent = `It would mute ${answer.total} of what is firing now:`;
  const list = document.createElement("ul");
  for (const item of answer.items) {
    const entry = document.createElement("li");
    entry.textContent = `${item.rule}: ${item.kind} ${item.namespace}/${item.name} (${item.states.join(", ")})`;
    list.append(entry);
  }
  box.append(line, list);
}

const matchInput = document.getElementById("preview-match");
if (matchInput) {
  let timer = 0;
  matchInput.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const box = document.getElementById("preview");
      if (!matchInput.value.trim()) { box.replaceChildren(); return; }
      const query = new URLSearchParams({ match: matchInput.value });
      const answer = await fetch(`/page/silences/preview?${query}`).then((r) => r.json());
      showPreview(box, answer);
    }, 300);
  });
}

const REFRESH_SECONDS = 10;
const refreshBox = document.getElementById("auto-refresh");
if (refreshBox) {
  refreshBox.checked = window.localStorage.getItem("kn-refresh") === "on";
  refreshBox.addEventListener("change", () => {
    window.localStorage.setItem("kn-refresh", refreshBox.checked ? "on" : "off");
  });
  const fields = "main input:not([type=hidden]), main textarea";
  const edited = () => [...document.querySelectorAll(fields)].some((f) => f.value !== f.defaultValue);
  setInterval(() => {
    if (refreshBox.checked && !edited()) window.location.replace(window.location.href);
  }, REFRESH_SECONDS * 1000);
}
