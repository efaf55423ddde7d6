// pydantic-ai ModelMessage JSON → compact timeline entries (chat bubbles and activity lines).

const num = new Intl.NumberFormat();

function asText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c) => (typeof c === "string" ? c : "[attachment]")).join("\n");
  return content == null ? "" : JSON.stringify(content);
}

function plural(n, one, many) {
  return `${num.format(n)} ${n === 1 ? one : many}`;
}

/**
 * Entries for a list of messages: `{kind: "user" | "agent", text}` and
 * `{kind: "activity", text, tone: "info" | "ok" | "edit" | "warn"}`.
 * `names` maps file ids to file names (Read returns carry the name; calls only the id).
 */
export function timelineEntries(messages, names = new Map()) {
  const entries = [];
  for (const message of messages || []) {
    const parts = message.parts || [];
    if (message.kind === "response") {
      const translates = parts.filter((p) => p.part_kind === "tool-call" && p.tool_name === "Translate");
      for (const part of parts) {
        if (part.part_kind === "text" && asText(part.content).trim()) {
          entries.push({ kind: "agent", text: asText(part.content).trim() });
        } else if (part.part_kind === "tool-call" && !["Translate", "Read", "Remember"].includes(part.tool_name)) {
          entries.push({ kind: "activity", tone: "info", text: `Called ${part.tool_name}` });
        }
      }
      if (translates.length) {
        entries.push({ kind: "activity", tone: "info", text: `Proposed ${plural(translates.length, "unit", "units")}` });
      }
    } else if (message.kind === "request") {
      for (const part of parts) {
        if (part.part_kind === "user-prompt") {
          entries.push({ kind: "user", text: asText(part.content) });
        } else if (part.part_kind === "tool-return") {
          entries.push(toolReturn(part, names));
        } else if (part.part_kind === "retry-prompt") {
          const why = typeof part.content === "string" ? part.content : "invalid arguments";
          entries.push({ kind: "activity", tone: "warn", text: `Tool call refused: ${firstLine(why)}` });
        }
      }
    }
  }
  return entries;
}

function firstLine(text) {
  const line = String(text).split("\n").find((l) => l.trim()) || "";
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
}

function toolReturn(part, names) {
  // A unit approved as proposed returns the bare status; every other result is an object.
  const c = part.content === "approve" ? { status: "approve" } : part.content && typeof part.content === "object" ? part.content : {};
  if (part.tool_name === "Read") {
    const name = c.name || names.get(c.file_id) || "the file";
    if (c.complete || c.text === "") return { kind: "activity", tone: "ok", text: `Read ${name}: fully translated` };
    if (c.error || c.status === "error") return { kind: "activity", tone: "warn", text: `Read ${name} failed: ${firstLine(c.error || c.reason || "")}` };
    const from = typeof c.start === "number" ? ` from ${num.format(c.start)}` : "";
    const size = typeof c.text === "string" ? ` (${plural(c.text.length, "character", "characters")})` : "";
    return { kind: "activity", tone: "info", text: `Read ${name}${from}${size}` };
  }
  if (part.tool_name === "Translate") {
    if (c.status === "approve") return { kind: "activity", tone: "ok", text: "Unit approved" };
    if (c.status === "refined") return { kind: "activity", tone: "edit", text: "Unit edited and approved" };
    if (c.status === "reject") {
      return { kind: "activity", tone: "warn", text: c.reason ? `Unit rejected: ${firstLine(c.reason)}` : "Unit rejected" };
    }
    return { kind: "activity", tone: "info", text: `Translate: ${firstLine(asText(part.content))}` };
  }
  if (part.tool_name === "Remember") {
    // What the model kept for the reviewer's memory, in the tool's own words ("Kept: «a» → «b». Not kept: …").
    const tone = asText(part.content).startsWith("Kept") ? "ok" : "warn";
    return { kind: "activity", tone, text: `Memory: ${firstLine(asText(part.content))}` };
  }
  return { kind: "activity", tone: "info", text: `${part.tool_name} answered` };
}

/**
 * Who moves next, inferred from the history as the server does: the human when the latest
 * message is a model answer without tool calls, else the agent (null for an empty history).
 */
export function nextActor(messages) {
  if (!messages || !messages.length) return null;
  const last = messages[messages.length - 1];
  if (last.kind === "response" && !(last.parts || []).some((p) => p.part_kind === "tool-call")) return "user";
  return "agent";
}

/** The first user prompt, used as the session's title when the list has none. */
export function firstUserInput(messages) {
  for (const m of messages || []) {
    if (m.kind !== "request") continue;
    for (const p of m.parts || []) if (p.part_kind === "user-prompt") return asText(p.content);
  }
  return null;
}
