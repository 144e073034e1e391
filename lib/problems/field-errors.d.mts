import type { FieldError } from '../contract/ajv.js';

export declare const MAX_FIELD_ERRORS: number;
export declare const MAX_ECHO: number;
export declare function cut(text: string, max: number): string;
export declare function placeOf(error: FieldError): string;
export declare function validationFields(errors: readonly FieldError[], omitted?: number): { errors: FieldError[]; omittedErrors: number; detail: string };
