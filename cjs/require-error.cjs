// aiwg-context is an ES module; this is what `require('aiwg-context')` resolves to (package.json exports "require").
throw new Error('aiwg-context is an ES module and cannot be require()d: use `import { ... } from "aiwg-context"`, or `await import("aiwg-context")` from CommonJS');
