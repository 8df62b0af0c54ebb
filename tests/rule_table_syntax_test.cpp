// Rule tables on the engine as syntax trees (rules/to_model.hpp): the tree prints as a model
// file that parses back to it and compiles to the same graph; every diagnostic names the
// table's file, line and column. The printer (lang/syntax.hpp) on the shipped model files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hysim/lang/spec.hpp"
#include "hysim/lang/syntax.hpp"
#include "hysim/rules/to_model.hpp"
#include "source_dir.hpp"
#include "test_support.hpp"

namespace hysim::rules {
namespace {

std::vector<std::string> files_in(const std::string& folder, const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(testing::source_dir() + "/" + folder)) {
    const std::string path = entry.path().string();
    if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(path);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(RuleTableSyntax, ShippedTablesPrintAsFilesThatCompileToTheSameGraph) {
  int translated = 0;
  for (const std::string& path : files_in("models/rules", ".rules.tsv")) {
    const RuleTable table = read_rule_table(path);
    lang::ModelSyntax syntax;
    try {
      syntax = model_syntax(table);
    } catch (const lang::ModelFileError& e) {  // interpreter-only tables: refused at their cells
      EXPECT_TRUE(testing::contains(e.what(), path + ":")) << e.what();
      continue;
    }
    ++translated;
    const std::string text = lang::print(syntax);
    for (lang::Definition& let : syntax.lets) let.description.clear();  // printed as comments
    EXPECT_EQ(lang::print(lang::parse(lang::SourceText("printed", text))), lang::print(syntax)) << path;
    const lang::ModelSpec direct = lang::resolve(lang::SourceText(table.file, table.text), syntax);
    const lang::ModelSpec reparsed = lang::compile_text("printed", model_text(table));
    EXPECT_EQ(direct.graph.size(), reparsed.graph.size()) << path;
    EXPECT_EQ(direct.modes.size(), reparsed.modes.size()) << path;
    EXPECT_EQ(direct.transitions.size(), reparsed.transitions.size()) << path;
    ASSERT_EQ(direct.states.size(), reparsed.states.size()) << path;
    for (std::size_t i = 0; i < direct.states.size(); ++i) EXPECT_EQ(direct.states[i].name, reparsed.states[i].name);
  }
  EXPECT_GE(translated, 8);
}

TEST(RuleTableSyntax, TheCompilersWarningsPointAtTheTable) {
  std::string text = "[initial]\na\t1\nb\t2\nc\t3\nd\t4\ne\t5\nf\t6\n[rules]\nNo\tVariable\tProcedure\tArgument 1\n";
  // Each relay integrated by the next variable: coupled surfaces, so not switch parts either.
  const std::string names = "abcdef";
  int n = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string v(1, names[i]), w(1, names[(i + 1) % names.size()]);
    text += std::to_string(++n) + "\tr" + v + "\trelay\t" + v + "\n";
    text += std::to_string(++n) + "\t" + w + "\tintegral\tr" + v + "\n";
  }
  const RuleTable table = parse_rule_table(lang::SourceText("six.rules.tsv", text));
  std::string warnings;
  (void)engine_entry(table, &warnings);
  // The first rule's row, with the row shown under it.
  EXPECT_TRUE(testing::contains(warnings, "six.rules.tsv:10:1: warning: mode 'run' switches on 6 conditions")) << warnings;
  EXPECT_TRUE(testing::contains(warnings, "1\tra\trelay\ta")) << warnings;
}

TEST(RuleTableSyntax, ANumberTheLanguageCannotWriteIsRefusedAtItsCell) {
  const std::string text = "[rules]\nNo\tVariable\tProcedure\tArgument 1\n1\tx\tintegral\t0x10\n";
  const RuleTable table = parse_rule_table(lang::SourceText("hex.rules.tsv", text));
  try {
    (void)model_syntax(table);
    ADD_FAILURE() << "0x10 was translated";
  } catch (const lang::ModelFileError& e) {
    EXPECT_TRUE(testing::contains(e.what(), "hex.rules.tsv:3:14: error: '0x10'")) << e.what();
  }
}

TEST(ModelSyntaxPrinter, ShippedModelFilesPrintAndParseBackToTheSameTree) {
  for (const std::string& path : files_in("models", ".hym")) {
    const lang::ModelSyntax parsed = lang::parse(lang::SourceText(path, read_text(path)));
    const std::string text = lang::print(parsed);
    EXPECT_EQ(lang::print(lang::parse(lang::SourceText("printed", text))), text) << path;
    const lang::ModelSpec original = lang::compile_file(path);
    const lang::ModelSpec printed = lang::compile_text("printed", text);
    EXPECT_EQ(original.graph.size(), printed.graph.size()) << path;
    EXPECT_EQ(original.modes.size(), printed.modes.size()) << path;
  }
}

TEST(ModelSyntaxPrinter, ParenthesesOnlyWhereTheGrammarNeedsThem) {
  const auto round = [](const std::string& expression) {
    const lang::ModelSyntax m = lang::parse(lang::SourceText("e", "model m\nparameter a = 1, b = 2, c = 3\nlet e = " +
                                                                     expression + "\n"));
    return lang::print(*m.lets[0].value);
  };
  EXPECT_EQ(round("a - (b - c)"), "a - (b - c)");
  EXPECT_EQ(round("(a - b) - c"), "a - b - c");
  EXPECT_EQ(round("-a^2"), "-a ^ 2");
  EXPECT_EQ(round("(-a)^2"), "(-a) ^ 2");
  EXPECT_EQ(round("a^b^c"), "a ^ b ^ c");
  EXPECT_EQ(round("(a^b)^c"), "(a ^ b) ^ c");
  EXPECT_EQ(round("a * (if a > b then a else b)"), "a * (if a > b then a else b)");
  EXPECT_EQ(round("if !(a < b || b < c) then -(-a) else min(a, b)"), "if !(a < b || b < c) then -(-a) else min(a, b)");
}

}  // namespace
}  // namespace hysim::rules
