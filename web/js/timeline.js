// @ts-check
// Conversation and activity: chat bubbles for the human and the agent, tool work as collapsible lines.

import { api } from "./api.js";
import { $, h } from "./dom.js";
import { timelineEntries } from "./messages.js";
import { state } from "./state.js";
import { showError, clearError } from "./status.js";

const fileNames = () => new Map(state.files.map((f) => [f.fileId, f.name]));

export function renderTimeline() {
  $("timeline").replaceChildren();
  $("history-more").hidden = state.messagesComplete;
  appendTimeline(state.messages);
}

/** @param {any[]} messages */
export function appendTimeline(messages) {
  const list = $("timeline");
  for (const entry of timelineEntries(messages, fileNames())) {
    if (entry.kind === "activity") {
      let group = list.lastElementChild;
      if (!group || !group.classList.contains("activity-group")) {
        group = h(
          "li",
          { class: "activity-group" },
          h("details", {}, h("summary", {}, h("span", { class: "activity-count" }), h("span", { class: "activity-last" })), h("ol", { class: "activity-list" })),
        );
        list.append(group);
      }
      const items = group.querySelector(".activity-list");
      items.append(h("li", { class: `activity tone-${entry.tone}`, text: entry.text }));
      const n = items.children.length;
      group.querySelector(".activity-count").textContent = `${n} ${n === 1 ? "step" : "steps"}`;
      group.querySelector(".activity-last").textContent = entry.text;
    } else {
      list.append(
        h(
          "li",
          { class: `bubble bubble-${entry.kind}` },
          h("span", { class: "bubble-who", text: entry.kind === "user" ? "You" : "Agent" }),
          h("p", { class: "bubble-text", dir: "auto", text: entry.text }),
        ),
      );
    }
  }
  const bubbles = list.querySelectorAll(".bubble").length;
  $("conversation-count").textContent = bubbles ? `(${bubbles} ${bubbles === 1 ? "message" : "messages"})` : "";
  const conv = $("conversation");
  if (conv.open) conv.scrollTop = conv.scrollHeight;
}

/** A note from the service about a step (`agentResponse.notice`: the model answered nothing, say). @param {string} text */
export function appendNotice(text) {
  const list = $("timeline");
  list.append(
    h(
      "li",
      { class: "bubble bubble-notice", role: "status" },
      h("span", { class: "bubble-who", text: "Note" }),
      h("p", { class: "bubble-text", text }),
    ),
  );
  const conv = $("conversation");
  conv.open = true; // a note asks something of the user: show it
  conv.scrollTop = conv.scrollHeight;
}

export async function loadFullHistory() {
  const all = [];
  let cursor = null;
  try {
    do {
      const page = await api.messages(/** @type {string} */ (state.sessionId), cursor);
      all.push(...page.messages);
      cursor = page.nextCursor;
    } while (cursor);
  } catch (err) {
    const e = /** @type {any} */ (err);
    showError(e, e.retryable ? () => (clearError(), loadFullHistory()) : null);
    return;
  }
  state.messages = all;
  state.messagesComplete = true;
  renderTimeline();
}
