// @ts-check
// The shapes of API.md as JSDoc types, shared by every module (this file has no code).

/**
 * @typedef {{name: string, callId: string}} ToolRef
 * @typedef {string | {code?: string, message: string, level?: "warning" | "error"}} Warning
 * @typedef {object} CopilotRequest
 * @property {ToolRef} tool
 * @property {string} [file_id]
 * @property {string} src_string
 * @property {string} translate_string
 * @property {string} [current_string] the written text, for a Revise request
 * @property {number} [start]
 * @property {number} [end]
 * @property {string[]} [segments] the ids of the segments the unit covers
 * @property {string} [origin] "model" or "memory"
 * @property {number} [match]
 * @property {Warning[]} [warnings]
 * @property {Reference[]} [references] similar units from the translation memory
 * @property {GlossaryHit[]} [glossary] the glossary's entries whose term the source has
 * @property {number | null} [estimate] the quality estimate, 0–100
 * @property {string[]} [estimateReasons] what lowered it
 * @property {{key: string, note?: string | null, refs?: string[], flags?: string[], codes?: string[] | null} | null} [context] a resource string's key, note, `#:` references, flags and locked codes
 * @property {{categories: string[], source?: Record<string, string>} | null} [plural] a plural entry's target categories
 * @property {Record<string, string>} [forms] a plural proposal's forms (the cards' own copy; translate_string is their JSON)
 * @property {boolean} [sampled] the routing would have approved it; its sample sent it to a person
 *
 * @typedef {{term: string, kind: "preferred" | "forbidden" | "keep", expected: string, found: boolean}} GlossaryHit
 * @typedef {{score: number, source: string, target: string, diff?: [string, string][]}} Reference
 * @typedef {"approve" | "refined" | "reject"} Verdict
 * @typedef {{category: string, severity: string}} MqmIssue an MQM Core error type and "minor", "major" or "critical"
 * @typedef {{tool: ToolRef, status: Verdict, translated_string?: string, reason?: string, issue?: MqmIssue}} CopilotResponse
 * @typedef {{sessionId?: string, userInput?: string, copilotResponses?: CopilotResponse[], takeOver?: boolean}} NextBody
 * (`takeOver`: a project's manager takes the session from the member who holds it)
 *
 * @typedef {object} AgentResponse
 * @property {"agent" | "user"} actor
 * @property {any[]} messages pydantic-ai ModelMessage JSON
 * @property {any[]} [unprocessedToolCalls]
 * @property {CopilotRequest[]} copilotRequests
 * @property {string | null} [finishReason]
 * @property {boolean} [queued]
 *
 * @typedef {{translatedChars: number, totalChars: number, complete: boolean}} Progress
 * @typedef {{fileId: string, name: string, chars: number, segments?: number, progress?: Progress}} FileInfo
 * (`segments`: the file's segment count, fixed at upload, where the server gives it)
 * @typedef {{sessionId: string, agentResponse: AgentResponse, queued?: boolean, progress?: FileInfo[]}} StepResponse
 *
 * @typedef {string | {text?: string, userInput?: string, content?: string}} QueuedInput
 * @typedef {object} SessionView
 * @property {string} id
 * @property {any[]} messages
 * @property {number} [messageCount]
 * @property {boolean} [messagesComplete]
 * @property {CopilotRequest[]} pendingCopilotRequests
 * @property {"agent" | "user" | null} [actor]
 * @property {FileInfo[]} files
 * @property {QueuedInput[]} [queuedInputs]
 * @property {string} [updatedAt]
 * @property {string | null} [sourceLanguage] BCP 47; null while not known (absent on older servers)
 * @property {string | null} [targetLanguage] BCP 47, or null
 * @property {{minEstimate: number, sample?: number} | null} [autoApprove] the session's routing, null when off (`sample`: the share sent to a person anyway)
 * @property {SessionState} [state] where the translation stands (absent on older servers)
 * @property {string | null} [retryAt] ISO 8601, for `waiting`: when the provider said to try again
 * @property {string | null} [error] what stopped the latest step, for `waiting`, `failed` and `stopped`
 * @property {number} [segmentsLeft] segments of the files not written yet
 * @property {string} [model] the configured model the next step uses
 * @property {string | null} [project] the project the session belongs to, null for the creator's own
 * @property {"single" | "double" | "pretranslate"} [review] whether a reviewer passes what translators decide (`double`) or what the model pre-translated (`pretranslate`)
 * @property {string | null} [heldBy] the member who drives the project's session while their claim lasts
 * @property {string | null} [until] when that claim ends (ISO 8601)
 *
 * @typedef {"running" | "waiting" | "failed" | "stopped" | "complete"} SessionState
 * @typedef {{modelRequests: number, inputTokens: number, outputTokens: number, usd: number | null}} JobFigures
 * @typedef {Progress & {segments: number, segmentsLeft: number}} JobProgress
 * @typedef {object} JobLanguage
 * @property {string} sessionId
 * @property {JobProgress} progress
 * @property {SessionState} state
 * @property {string | null} [retryAt]
 * @property {string | null} [error]
 * @property {JobFigures} spent
 * @property {JobFigures} estimate `usd` null when the model has no price
 * @typedef {{id: string, createdAt: string, languages: Record<string, JobLanguage>, spent: JobFigures, estimate: JobFigures}} JobView
 * @typedef {{files: ({name: string, content: string} | {name: string, contentBase64: string})[], targetLanguages: string[], sourceLanguage?: string, model?: string, project?: string}} JobCreate
 *
 * @typedef {"untranslated" | "pending" | "approved" | "refined" | "revised" | string} SegmentStatus
 * @typedef {object} Segment
 * @property {string} [id] the segment (found at upload) the piece begins in: "s1", "s2", …
 * @property {number} start
 * @property {number} end
 * @property {string} source
 * @property {string | null} target
 * @property {SegmentStatus} status
 * @property {string | null} [origin]
 * @property {string | null} [updatedAt]
 * @property {HistoryEvent[] | null} [history] a written unit's audit trail, oldest first
 * @property {number | null} [estimate] the quality estimate of its proposal
 * @property {boolean} [auto] approved by the session's routing, without a card
 * @property {{key: string, note?: string | null, refs?: string[], flags?: string[], codes?: string[] | null} | null} [context] a resource string's key, note, `#:` references, flags and locked codes
 * @property {number} [comments] how many comments the thread of the segment `id` holds
 * @property {number} [openComments] how many of them are not resolved
 * @typedef {{action: string, by: string, at: string, origin: string | null, estimate?: number | null, issue?: MqmIssue | null}} HistoryEvent
 * @typedef {{units: number, unchanged: number, edited: number, chrF: number | null, ter: number | null}} PostEdit
 * @typedef {{category: string, dimension: string, minor: number, major: number, critical: number, penalty: number}} ScorecardRow
 * @typedef {object} Scorecard
 * @property {string} fileId
 * @property {string} name
 * @property {number} words the evaluation word count
 * @property {ScorecardRow[]} issues
 * @property {Record<string, number>} totals by severity
 * @property {number} penalty
 * @property {number | null} penaltyPer1000Words
 * @property {number | null} score
 * @property {number} threshold
 * @property {boolean} passed
 * @property {"pass" | "fail"} result
 * @property {PostEdit} postEdit
 * @typedef {{segments: Segment[], nextCursor: string | null}} SegmentPage
 * @typedef {{status?: string, q?: string, cursor?: string | null, limit?: number}} SegmentQuery
 * @typedef {{added: number, updated: number, skipped: number}} ImportResult
 * @typedef {{start: number, end: number, text: string, status: string, callId?: string}} WrittenUnit
 *
 * @typedef {"manager" | "reviewer" | "translator"} Role
 * @typedef {{id: string, name: string, role: Role, languages: string[]}} ProjectEntry one of the caller's projects
 * @typedef {{sub: string, role: Role, languages: string[]}} Member
 * @typedef {object} Project
 * @property {string} id
 * @property {string} name
 * @property {string | null} [sourceLanguage]
 * @property {"single" | "double" | "pretranslate"} review
 * @property {{minEstimate: number, sample?: number} | null} [autoApprove]
 * @property {Member[]} members
 * @property {string} [createdAt]
 * @property {string} [updatedAt]
 * @typedef {{id: string, by: string, at: string, text: string, resolved: boolean, resolvedBy?: string | null, resolvedAt?: string | null}} Comment
 * @typedef {{segmentId: string, comments: number, open: number, thread: Comment[]}} Thread
 * @typedef {{files: {fileId: string, name: string, threads: Thread[]}[]}} SessionThreads
 */

export {};
