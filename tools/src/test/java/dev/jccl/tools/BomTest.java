package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The BOM (bom/pom.xml) names every library module of the build, at the build's version, and nothing else: a module
 * added to the build and forgotten in the BOM would leave users with mismatched versions. Programs (tools, examples,
 * bench) are the modules that skip their javadoc jar, and are left out.
 */
@Timeout(30)
class BomTest {
    private static final Path ROOT = Path.of("..");

    @Test
    void theBomListsEveryLibraryModuleAtTheProjectVersion() throws Exception {
        Document root = read(ROOT.resolve("pom.xml"));
        String version = text(root.getDocumentElement(), "version");
        Set<String> libraries = new TreeSet<>();
        for (String module : children(child(root.getDocumentElement(), "modules"), "module")) {
            Element pom = read(ROOT.resolve(module).resolve("pom.xml")).getDocumentElement();
            String packaging = child(pom, "packaging") == null ? "jar" : text(pom, "packaging");
            Element properties = child(pom, "properties");
            boolean program = properties != null && child(properties, "maven.javadoc.skip") != null;
            if (packaging.equals("jar") && !program) libraries.add(text(pom, "artifactId"));
        }

        Element bom = read(ROOT.resolve("bom/pom.xml")).getDocumentElement();
        assertEquals("jccl-bom", text(bom, "artifactId"));
        assertEquals(version, text(bom, "version"), "the BOM's version follows the project's");
        assertEquals(null, child(bom, "parent"), "a parent's dependencyManagement would leak into users' builds");
        Set<String> listed = new TreeSet<>();
        Element managed = child(child(bom, "dependencyManagement"), "dependencies");
        for (Node n = managed.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element dependency && dependency.getTagName().equals("dependency")) {
                assertEquals("dev.jccl", text(dependency, "groupId"));
                assertEquals("${project.version}", text(dependency, "version"));
                listed.add(text(dependency, "artifactId"));
            }
        }
        assertEquals(Set.of("jccl-core", "jccl-cuda", "jccl-spark", "jccl-ucx"), libraries, "library modules");
        assertEquals(libraries, listed, "modules the BOM manages");
    }

    private static Document read(Path pom) throws Exception {
        if (!Files.isRegularFile(pom)) throw new AssertionError("no " + pom.toAbsolutePath());
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    private static Element child(Element parent, String tag) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(tag)) return e;
        }
        return null;
    }

    private static String text(Element parent, String tag) {
        Element e = child(parent, tag);
        if (e == null) throw new AssertionError("<" + parent.getTagName() + "> has no <" + tag + ">");
        return e.getTextContent().trim();
    }

    private static List<String> children(Element parent, String tag) {
        List<String> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(tag)) {
                out.add(e.getTextContent().trim());
            }
        }
        return out;
    }
}
