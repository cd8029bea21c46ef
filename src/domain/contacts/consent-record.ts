/**
 * A consent as the contact's custom fields: `consentText` (the statement shown), `consentSource`
 * (where it was given) and `consentAt` (when, ISO 8601). A later consent replaces them. One shape
 * for every way consent is collected (lead forms, contact imports).
 */
export function consentRecord(text: string, source: string, at: Date = new Date()) {
  return { consentText: text, consentSource: source, consentAt: at.toISOString() };
}
