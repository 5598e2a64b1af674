// Prints the public API of an assembly, one declaration a line, for test/stub-api.test.ts:
//
//   mono PublicApi.exe <assembly>
//
// Each line is `<namespace>|<type>: <declaration>` for every public type (its kind, base type and
// interfaces) and every public or protected member it declares itself (fields, properties with
// their accessors, events, constructors, methods with parameter and return types), so two sets
// of proxies in different namespaces can be compared line for line once the namespace is cut off.

using System;
using System.Linq;
using System.Reflection;

public static class PublicApi {
  const BindingFlags Declared = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;

  public static int Main(string[] args) {
    var assembly = Assembly.LoadFrom(args[0]);
    foreach (var t in assembly.GetExportedTypes().OrderBy(t => t.FullName)) {
      string prefix = t.Namespace + "|" + Name(t, t.Namespace) + ": ";
      string kind = t.IsEnum ? "enum" : t.IsInterface ? "interface" : t.IsValueType ? "struct" : typeof(Delegate).IsAssignableFrom(t) ? "delegate" : t.IsAbstract ? "abstract class" : "class";
      var bases = (t.BaseType != null ? new[] { t.BaseType } : new Type[0]).Concat(t.GetInterfaces()).Select(b => Name(b, t.Namespace));
      Console.WriteLine(prefix + kind + " " + Name(t, t.Namespace) + " : " + string.Join(", ", bases));
      foreach (var m in t.GetMembers(Declared).Where(Visible)) Console.WriteLine(prefix + Member(m, t.Namespace));
    }
    return 0;
  }

  static bool Visible(MemberInfo m) {
    var f = m as FieldInfo;
    if (f != null) return f.IsPublic || f.IsFamily || f.IsFamilyOrAssembly;
    var b = m as MethodBase;
    if (b != null) return (b.IsPublic || b.IsFamily || b.IsFamilyOrAssembly) && (!b.IsSpecialName || b is ConstructorInfo);
    var p = m as PropertyInfo;
    if (p != null) return p.GetAccessors(true).Any(a => a.IsPublic || a.IsFamily);
    var e = m as EventInfo;
    if (e != null) return e.AddMethod != null && (e.AddMethod.IsPublic || e.AddMethod.IsFamily);
    var n = m as Type;
    return n != null && (n.IsNestedPublic || n.IsNestedFamily);
  }

  static string Access(MethodBase b) => b.IsPublic ? "public" : "protected";

  static string Member(MemberInfo m, string ns) {
    var f = m as FieldInfo;
    if (f != null) return (f.IsPublic ? "public " : "protected ") + (f.IsStatic ? "static " : "") + Name(f.FieldType, ns) + " " + f.Name;
    var c = m as ConstructorInfo;
    if (c != null) return Access(c) + " " + (c.IsStatic ? "static " : "") + ".ctor(" + Params(c, ns) + ")";
    var mi = m as MethodInfo;
    if (mi != null) return Access(mi) + " " + (mi.IsStatic ? "static " : "") + (mi.IsAbstract ? "abstract " : mi.IsVirtual ? "virtual " : "") + Name(mi.ReturnType, ns) + " " + mi.Name + "(" + Params(mi, ns) + ")";
    var p = m as PropertyInfo;
    if (p != null) {
      var accessors = p.GetAccessors(true).Where(a => a.IsPublic || a.IsFamily).Select(a => Access(a) + " " + (a == p.GetGetMethod(true) ? "get" : "set")).OrderBy(a => a);
      return "property " + Name(p.PropertyType, ns) + " " + p.Name + " { " + string.Join("; ", accessors) + " }";
    }
    var e = m as EventInfo;
    if (e != null) return "event " + Name(e.EventHandlerType, ns) + " " + e.Name;
    return "nested " + Name((Type)m, ns);
  }

  static string Params(MethodBase b, string ns) => string.Join(", ", b.GetParameters().Select(p => (p.IsOut ? "out " : p.ParameterType.IsByRef ? "ref " : "") + Name(p.ParameterType, ns) + " " + p.Name));

  static string Name(Type t, string ns) {
    string name = t.IsGenericType
      ? t.GetGenericTypeDefinition().FullName.Split('`')[0] + "<" + string.Join(", ", t.GetGenericArguments().Select(a => Name(a, ns))) + ">"
      : t.FullName ?? t.Name;
    return ns != null && name.StartsWith(ns + ".") ? name.Substring(ns.Length + 1) : name;
  }
}
