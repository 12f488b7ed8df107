import { isUnderscorePrivate, setOf, type LanguageSpec, type SyntaxNode } from './types.js';

function assignmentOf(node: SyntaxNode): SyntaxNode | null {
  const inner = node.firstNamedChild;
  return node.type === 'expression_statement' && inner?.type === 'assignment' ? inner : null;
}

export const pythonLanguage: LanguageSpec = {
  id: 'python',
  fileType: 'Python',
  grammar: 'python',
  extensions: ['.py', '.pyi', '.pyw'],
  definitions: { function_definition: 'function', class_definition: 'class' },
  containers: setOf('class_definition'),
  wrappers: setOf('decorated_definition'),
  comments: setOf('comment'),
  imports: setOf('import_statement', 'import_from_statement', 'future_import_statement'),
  bodyStyle: 'indent',
  commentPrefix: '#',
  kindOf(node) {
    if (node.type === 'function_definition') {
      const owner = node.parent?.type === 'decorated_definition' ? node.parent.parent : node.parent;
      return owner?.parent?.type === 'class_definition' ? 'method' : 'function';
    }
    return assignmentOf(node) ? 'variable' : undefined;
  },
  bodyOf(node) {
    return assignmentOf(node)?.childForFieldName('right') ?? node.childForFieldName('body');
  },
  nameOf(node) {
    return (assignmentOf(node)?.childForFieldName('left') ?? node.childForFieldName('name'))?.text;
  },
  isExported(node, name, context) {
    if (isUnderscorePrivate(name)) return false;
    // Methods are public when their class is.
    return context.container === null || !isUnderscorePrivate(context.container.childForFieldName('name')?.text ?? '');
  },
};
