import { isUnderscorePrivate, setOf, type LanguageSpec } from './types.js';

export const shellLanguage: LanguageSpec = {
  id: 'shell',
  fileType: 'Shell script',
  grammar: 'bash',
  extensions: ['.sh', '.bash', '.zsh', '.ksh'],
  definitions: { function_definition: 'function' },
  containers: setOf(),
  wrappers: setOf(),
  comments: setOf('comment'),
  imports: setOf(),
  bodyStyle: 'brace',
  commentPrefix: '#',
  isExported(_node, name) {
    return !isUnderscorePrivate(name);
  },
};
