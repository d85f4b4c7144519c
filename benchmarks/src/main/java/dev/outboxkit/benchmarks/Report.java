package dev.outboxkit.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Collects result tables, prints them and writes them as Markdown. */
final class Report {
  private final List<String> sections = new ArrayList<>();

  void section(String title, String intro, List<String[]> rows) {
    StringBuilder md = new StringBuilder();
    md.append("## ").append(title).append("\n\n");
    if (!intro.isEmpty()) {
      md.append(intro).append("\n\n");
    }
    for (int i = 0; i < rows.size(); i++) {
      md.append("| ").append(String.join(" | ", rows.get(i))).append(" |\n");
      if (i == 0) {
        md.append("|").append("---|".repeat(rows.get(0).length)).append("\n");
      }
    }
    String text = md.toString();
    sections.add(text);
    System.out.println(text);
  }

  void write(Path file, String header) throws IOException {
    StringBuilder md = new StringBuilder(header).append("\n");
    for (String s : sections) {
      md.append(s).append("\n");
    }
    Files.writeString(file, md.toString(), StandardCharsets.UTF_8);
    System.out.println("written to " + file.toAbsolutePath());
  }
}
