/**
 * A start-up failure an operator can fix: its message is one line naming the cause and the setting
 * to change. The CLI prints it alone (no stack) and exits 1.
 */
export class StartupError extends Error {}
