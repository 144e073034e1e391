import base from './vitest.config';
const projects = (base.test!.projects as any[]).map((p) => ({ ...p, test: { ...p.test, setupFiles: [...(p.test.setupFiles ?? []), './cpu-setup.tmp.ts'] } }));
export default { ...base, test: { ...base.test, projects } };
