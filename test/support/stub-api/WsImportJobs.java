// Runs JAX-WS wsimport on several WSDLs in one JVM (a JVM start per WSDL would take most of the
// test's time), then compiles every generated source with the JDK's compiler.
//
//   java -cp <jaxws jars> WsImportJobs.java <jobs file> <out dir>
//
// Each line of the jobs file is `<package> <wsdl file>`: the stubs of that WSDL go to that
// package. Sources are written under <out dir>/src, classes under <out dir>/classes. Exits 1
// when wsimport or the compiler fails, with their messages on stderr.

import com.sun.tools.ws.wscompile.WsimportTool;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.ToolProvider;

public class WsImportJobs {
  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[1]);
    Path src = out.resolve("src");
    Path classes = out.resolve("classes");
    Files.createDirectories(src);
    Files.createDirectories(classes);
    for (String line : Files.readAllLines(Path.of(args[0]))) {
      if (line.isBlank()) continue;
      String[] job = line.trim().split(" ", 2);
      ByteArrayOutputStream log = new ByteArrayOutputStream();
      boolean ok = new WsimportTool(log).run(new String[] {
        "-keep", "-extension", "-Xnocompile", "-quiet", "-d", src.toString(), "-p", job[0], job[1],
      });
      if (!ok) {
        System.err.println("wsimport failed on " + job[1] + ":\n" + log);
        System.exit(1);
      }
    }
    List<String> sources;
    try (Stream<Path> files = Files.walk(src)) {
      sources = files.filter((p) -> p.toString().endsWith(".java")).map(Path::toString).collect(Collectors.toList());
    }
    List<String> javac = new ArrayList<>(List.of("-nowarn", "-encoding", "UTF-8", "-cp", System.getProperty("java.class.path"), "-d", classes.toString()));
    javac.addAll(sources);
    int status = ToolProvider.getSystemJavaCompiler().run(null, null, System.err, javac.toArray(new String[0]));
    if (status != 0) System.exit(1);
  }
}
