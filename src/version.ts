/** Tool version recorded in every budget record. Keep in step with package.json. */
export const TOOL_VERSION = '0.1.0';
