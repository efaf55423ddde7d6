// @ts-check
// The shapes of API.md as JSDoc types, shared by every module (this file has no code).

/**
 * @typedef {{name: string, callId: string}} ToolRef
 * @typedef {string | {code?: string, message: string}} Warning
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
 * @property {{key: string, note?: string | null} | null} [context] a resource string's key and note
 * @property {{categories: string[], source?: Record<string, string>} | null} [plural] a plural entry's target categories
 * @property {Record<string, string>} [forms] a plural proposal's forms (the cards' own copy; translate_string is their JSON)
 *
 * @typedef {{score: number, source: string, target: string, diff?: [string, string][]}} Reference
 * @typedef {"approve" | "refined" | "reject"} Verdict
 * @typedef {{tool: ToolRef, status: Verdict, translated_string?: string, reason?: string}} CopilotResponse
 * @typedef {{sessionId?: string, userInput?: string, copilotResponses?: CopilotResponse[]}} NextBody
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
 * @property {{key: string, note?: string | null} | null} [context] a resource string's key and note
 * @typedef {{segments: Segment[], nextCursor: string | null}} SegmentPage
 * @typedef {{status?: string, q?: string, cursor?: string | null, limit?: number}} SegmentQuery
 * @typedef {{added: number, updated: number, skipped: number}} ImportResult
 * @typedef {{start: number, end: number, text: string, status: string, callId?: string}} WrittenUnit
 */

export {};
