import type { LanguageSupport } from './language.js';
import { scannedText, stripCStyleComments } from './language.js';

/**
 * Java (and Kotlin sources using Java-style imports): `import a.b.C;`, `import a.b.*;`,
 * `import static a.b.C.member;`. A class import resolves to the file whose path ends in
 * a/b/C.java (or .kt); a wildcard to every source file of the package directory.
 */
export const javaSupport: LanguageSupport = {
  name: 'java',
  files: /\.(?:java|kt)$/,
  // a specifier is the imported name, prefixed `static ` and/or suffixed `.*` as written
  extract(content) {
    const text = stripCStyleComments(scannedText(content));
    return [...text.matchAll(/^\s*import\s+(static\s+)?([A-Za-z_][\w.]*?)(\.\*)?\s*;?\s*$/gm)].map((m) => `${m[1] ? 'static ' : ''}${m[2] as string}${m[3] ?? ''}`);
  },
  prepare(project) {
    return (path, specifiers) => {
      const out = new Set<string>();
      for (const spec of specifiers) {
        const m = /^(static )?(.*?)(\.\*)?$/.exec(spec) as RegExpExecArray;
        const parts = (m[2] as string).split('.');
        if (m[3]) {
          for (const dir of project.dirsWithSuffix(parts.join('/'))) {
            for (const p of project.filesIn(dir)) if (/\.(?:java|kt)$/.test(p)) out.add(p);
          }
          continue;
        }
        // a static import names a member: drop trailing segments until a class file matches
        for (let n = parts.length; n >= (m[1] ? 2 : parts.length); n--) {
          const suffix = parts.slice(0, n).join('/');
          const hits = [...project.withSuffix(`${suffix}.java`), ...project.withSuffix(`${suffix}.kt`)];
          if (hits.length > 0) {
            for (const h of hits.sort()) out.add(h);
            break;
          }
        }
      }
      out.delete(path);
      return [...out];
    };
  },
};
