export const ENVELOPE_STYLE = Symbol('ENVELOPE_STYLE');
export const ERROR_CATALOG = Symbol('ERROR_CATALOG');
