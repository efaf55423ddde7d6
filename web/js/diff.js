// Word-level diff (no library): tokens are words, runs of whitespace and single punctuation marks;
// the longest common subsequence of tokens decides what was kept, deleted and inserted.

const TOKEN = /\s+|[\p{L}\p{M}\p{N}_'’-]+|[^\s]/gu;
const MAX_CELLS = 4_000_000; // beyond this, fall back to "all replaced" for the changed middle

export function tokenize(text) {
  return text.match(TOKEN) || [];
}

/**
 * Diff `before` against `after`: a list of `{op: "eq" | "del" | "ins", text}`, adjacent ops merged.
 */
export function diffWords(before, after) {
  const a = tokenize(before);
  const b = tokenize(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const ops = [];
  if (head) ops.push({ op: "eq", text: a.slice(0, head).join("") });
  ops.push(...middle(a.slice(head, a.length - tail), b.slice(head, b.length - tail)));
  if (tail) ops.push({ op: "eq", text: a.slice(a.length - tail).join("") });
  return merge(ops);
}

function middle(a, b) {
  const n = a.length;
  const m = b.length;
  if (!n && !m) return [];
  if (!n) return [{ op: "ins", text: b.join("") }];
  if (!m) return [{ op: "del", text: a.join("") }];
  if ((n + 1) * (m + 1) > MAX_CELLS) return [{ op: "del", text: a.join("") }, { op: "ins", text: b.join("") }];
  // lcs[i][j]: LCS length of a[i:] and b[j:], in one flat array.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  const ops = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ op: "eq", text: a[i] });
      i++;
      j++;
    } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
      ops.push({ op: "del", text: a[i++] });
    } else {
      ops.push({ op: "ins", text: b[j++] });
    }
  }
  while (i < n) ops.push({ op: "del", text: a[i++] });
  while (j < m) ops.push({ op: "ins", text: b[j++] });
  return ops;
}

/** Merge runs; a lone whitespace "eq" between two changes joins them, so edits read as phrases. */
function merge(ops) {
  const out = [];
  for (let k = 0; k < ops.length; k++) {
    const cur = ops[k];
    const prev = out[out.length - 1];
    const next = ops[k + 1];
    if (cur.op === "eq" && /^\s+$/.test(cur.text) && prev && prev.op !== "eq" && next && next.op !== "eq") {
      // "a b" → "x y": show "[-a b-][+x y+]" rather than "[-a-][+x+] [-b-][+y+]".
      out.push({ op: "del", text: cur.text }, { op: "ins", text: cur.text });
    } else {
      out.push({ ...cur });
    }
  }
  // Group: within a run of changes, all deletions first, then all insertions.
  const grouped = [];
  let dels = "";
  let ins = "";
  const flush = () => {
    if (dels) grouped.push({ op: "del", text: dels });
    if (ins) grouped.push({ op: "ins", text: ins });
    dels = "";
    ins = "";
  };
  for (const op of out) {
    if (op.op === "eq") {
      flush();
      const last = grouped[grouped.length - 1];
      if (last && last.op === "eq") last.text += op.text;
      else grouped.push(op);
    } else if (op.op === "del") dels += op.text;
    else ins += op.text;
  }
  flush();
  return grouped;
}

/** Counts for a summary line: words removed and added. */
export function diffStats(ops) {
  let removed = 0;
  let added = 0;
  for (const op of ops) {
    const words = (op.text.match(/[\p{L}\p{N}]+/gu) || []).length;
    if (op.op === "del") removed += words;
    if (op.op === "ins") added += words;
  }
  return { removed, added };
}

/** Render ops into `container` as text with <del>/<ins> marks. */
export function renderDiff(container, ops) {
  container.replaceChildren();
  for (const op of ops) {
    if (op.op === "eq") {
      container.append(op.text);
    } else {
      const mark = document.createElement(op.op);
      mark.textContent = op.text;
      mark.title = op.op === "del" ? "removed" : "added";
      container.append(mark);
    }
  }
}
