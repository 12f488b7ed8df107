import { isUnderscorePrivate, setOf, type LanguageSpec, type SyntaxNode } from './types.js';

/** A bare `private` or `protected` before a method makes it and the rest non-public. */
function isAfterPrivateKeyword(node: SyntaxNode): boolean {
  for (let sibling = node.previousNamedSibling; sibling; sibling = sibling.previousNamedSibling) {
    if (sibling.type === 'identifier' && (sibling.text === 'private' || sibling.text === 'protected')) return true;
    if (sibling.type === 'identifier' && sibling.text === 'public') return false;
  }
  return false;
}

export const rubyLanguage: LanguageSpec = {
  id: 'ruby',
  fileType: 'Ruby',
  grammar: 'ruby',
  extensions: ['.rb', '.rake', '.gemspec', 'Rakefile', 'Gemfile'],
  definitions: { method: 'method', singleton_method: 'method', class: 'class', module: 'module', singleton_class: 'class' },
  containers: setOf('class', 'module', 'singleton_class'),
  wrappers: setOf(),
  comments: setOf('comment'),
  imports: setOf(),
  bodyStyle: 'end',
  commentPrefix: '#',
  isImport(node) {
    return node.type === 'call' && /^(require|require_relative|load)$/.test(node.childForFieldName('method')?.text ?? '');
  },
  kindOf(node) {
    return node.type === 'method' && node.parent?.parent === null ? 'function' : undefined;
  },
  isExported(node, name) {
    return !isUnderscorePrivate(name) && !isAfterPrivateKeyword(node);
  },
};
