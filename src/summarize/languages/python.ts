import { isUnderscorePrivate, namedChildrenOf, setOf, type LanguageSpec, type SyntaxNode } from './types.js';

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
  moduleExports(root) {
    // `__all__ = ["a", "b"]` is the public surface when present.
    for (const statement of namedChildrenOf(root)) {
      const assignment = assignmentOf(statement);
      if (assignment?.childForFieldName('left')?.text !== '__all__') continue;
      const list = assignment.childForFieldName('right');
      if (list?.type !== 'list' && list?.type !== 'tuple') return undefined;
      const names = namedChildrenOf(list)
        .filter((c) => c.type === 'string')
        .map((c) => c.text.replace(/^[rbuRBU]*(['"]{1,3})([\s\S]*)\1$/, '$2'));
      return { names: new Set(names), exclusive: true };
    }
    return undefined;
  },
  isExported(node, name, context) {
    if (isUnderscorePrivate(name)) return false;
    // Methods are public when their class is.
    return context.container === null || !isUnderscorePrivate(context.container.childForFieldName('name')?.text ?? '');
  },
};
