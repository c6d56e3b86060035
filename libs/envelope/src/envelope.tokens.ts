export const ENVELOPE_STYLE = Symbol('ENVELOPE_STYLE');
