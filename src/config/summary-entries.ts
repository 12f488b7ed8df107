/**
 * The entry names the config accepts for the summary levels (spec 003). They live here, below
 * the summarizers, so config validation needs nothing from src/summarize/; the summarizers key
 * their tables by these names (a `Record<PreserveName, ...>`), so the two cannot drift.
 */

/** `summarization.levels.detailed.preserve`: which structure the detailed level keeps. */
export const PRESERVE_NAMES = ['function signatures', 'class definitions', 'interface types', 'comments/docstrings'] as const;
export type PreserveName = (typeof PRESERVE_NAMES)[number];

/** `summarization.levels.stub.include`: the lines a stub may hold, in their order. */
export const STUB_FIELD_NAMES = ['file path', 'file type', 'last modified', 'line count'] as const;
export type StubFieldName = (typeof STUB_FIELD_NAMES)[number];
