import { validationProblem } from '../http/problems.js';

/** A `companyId` in a body is optional, but when sent it must be the caller's own (D26). */
export function companyIdMustMatch(sent: string | undefined, companyId: string, pointer: string): void {
  if (sent !== undefined && sent !== companyId) {
    throw validationProblem([{ pointer, detail: "must be the API key's company", keyword: 'companyId' }]);
  }
}
