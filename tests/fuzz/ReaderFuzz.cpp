// A seeded, structure-aware mutator over the readers of the files a user hands to splitstep:
// the exported-model archive (graph/GraphArchive), the batch file (graph/BatchFile) and the INI
// file of --config (options/Options). Each run takes a file of the corpus, changes it, and reads
// the result: a refusal (GraphArchiveError, UsageError) is the reader doing its job; any other
// exception, and under AddressSanitizer any invalid access, is a finding.
//
//   splitstep_reader_fuzz CORPUS [--seed N] [--runs N] [--seconds S]
//
// CORPUS holds archive/*.pt2, batch/*.pt (checked against the batch of archive/sequential.pt2)
// and ini/*.ini. Archives and batch files are zips of records: most runs change one record (its
// bytes, a number in its text, its length) or drop it and write the zip again, with valid
// checksums, so that the change reaches the parsers behind the zip reader; the rest change the
// file's bytes. The input of each run is written to a scratch folder first, so that the one that
// crashed the process is on disk: its path is printed at the start, and the folder is removed
// only after a clean end. Exit status 0 when every input was read or refused, 1 on a finding, 2
// on bad usage.
#include <caffe2/serialize/inline_container.h>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "graph/BatchFile.hpp"
#include "graph/GraphArchive.hpp"
#include "options/OptionValue.hpp"
#include "options/Options.hpp"
#include "report/OutputCatalogue.hpp"
#include "suites/SuiteCatalog.hpp"

namespace splitstep {
namespace {

namespace fs = std::filesystem;

enum class Kind { Archive, Batch, Ini };

struct Seed {
  Kind kind;
  fs::path path;
  std::string bytes;
};

std::string readAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeAll(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

// Values that sit on the edges readers must hold: signs, zero, the ends of integer types, a
// fraction where an integer is meant, numbers no double holds, and words where numbers are.
const std::vector<std::string> kNumbers = {"0",
                                           "-1",
                                           "1",
                                           "2.5",
                                           "8.5",
                                           "-8",
                                           "65536",
                                           "4294967296",
                                           "4611686018427387904",
                                           "9223372036854775807",
                                           "-9223372036854775808",
                                           "18446744073709551616",
                                           "1e308",
                                           "1e400",
                                           "5e-324",
                                           "NaN",
                                           "true",
                                           "null",
                                           "\"8\"",
                                           "[]",
                                           "{}"};

class Mutator {
 public:
  explicit Mutator(std::uint64_t seed) : draw_(seed) {}

  std::size_t below(std::size_t n) { return n == 0 ? 0 : draw_() % n; }
  bool chance(int percent) { return static_cast<int>(below(100)) < percent; }

  // One change to `bytes`.
  void bytes(std::string& bytes) {
    switch (below(7)) {
      case 0:  // flip a few bits
        for (std::size_t i = 0, n = 1 + below(8); i < n && !bytes.empty(); ++i) {
          bytes[below(bytes.size())] ^= static_cast<char>(1u << below(8));
        }
        break;
      case 1: {  // a byte at an edge
        static constexpr char kEdges[] = {'\x00', '\x01', '\x7f', '\x80', '\xff', '\x1b', '\n'};
        if (!bytes.empty()) bytes[below(bytes.size())] = kEdges[below(sizeof kEdges)];
        break;
      }
      case 2:  // cut short
        bytes.resize(below(bytes.size() + 1));
        break;
      case 3:  // grow: zeros or a repeated piece of itself
        if (chance(50) || bytes.empty()) {
          bytes.append(below(4096), '\0');
        } else {
          const std::size_t at = below(bytes.size());
          bytes.append(bytes.substr(at, below(bytes.size() - at) + 1));
        }
        break;
      case 4:  // a number of the text replaced by an edge value
        number(bytes);
        break;
      case 5: {  // a piece removed
        if (bytes.empty()) break;
        const std::size_t at = below(bytes.size());
        bytes.erase(at, below(bytes.size() - at) + 1);
        break;
      }
      default: {  // a piece of itself copied over another place
        if (bytes.size() < 2) break;
        const std::size_t from = below(bytes.size());
        const std::size_t to = below(bytes.size());
        const std::size_t n = std::min(below(64) + 1, bytes.size() - std::max(from, to));
        bytes.replace(to, n, bytes.substr(from, n));
      }
    }
  }

  // The digits of one number of `text` (a JSON record, an INI value), replaced.
  void number(std::string& text) {
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const bool digit = text[i] >= '0' && text[i] <= '9';
      if (digit && (i == 0 || !(text[i - 1] >= '0' && text[i - 1] <= '9'))) starts.push_back(i);
    }
    if (starts.empty()) return;
    const std::size_t at = starts[below(starts.size())];
    std::size_t end = at;
    while (end < text.size() && ((text[end] >= '0' && text[end] <= '9') || text[end] == '.')) {
      ++end;
    }
    text.replace(at, end - at, kNumbers[below(kNumbers.size())]);
  }

 private:
  std::mt19937_64 draw_;
};

// The zip `bytes` with one record changed or dropped, written again with valid checksums; the
// bytes themselves changed where the zip cannot be read.
std::string mutateZip(const std::string& bytes, Mutator& m) {
  std::istringstream in(bytes);
  std::vector<std::pair<std::string, std::string>> records;
  try {
    caffe2::serialize::PyTorchStreamReader reader(&in);
    for (const std::string& name : reader.getAllRecords()) {
      const auto [data, size] = reader.getRecord(name);
      records.emplace_back(name, std::string(static_cast<const char*>(data.get()), size));
    }
  } catch (const std::exception&) {
    std::string raw = bytes;
    m.bytes(raw);
    return raw;
  }
  if (records.empty()) return bytes;
  const std::size_t chosen = m.below(records.size());
  const bool drop = m.chance(5);
  if (!drop) {
    for (std::size_t i = 0, n = 1 + m.below(3); i < n; ++i) m.bytes(records[chosen].second);
  }
  std::string out;
  {
    caffe2::serialize::PyTorchStreamWriter writer([&out](const void* data, std::size_t size) {
      out.append(static_cast<const char*>(data), size);
      return size;
    });
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (drop && i == chosen) continue;
      writer.writeRecord(records[i].first, records[i].second.data(), records[i].second.size(),
                         m.chance(10));
    }
    writer.writeEndOfFile();
  }
  return out;
}

std::vector<Seed> corpus(const fs::path& dir) {
  std::vector<Seed> seeds;
  for (const auto& [sub, kind] : {std::pair{"archive", Kind::Archive},
                                  std::pair{"batch", Kind::Batch}, std::pair{"ini", Kind::Ini}}) {
    for (const fs::directory_entry& entry : fs::directory_iterator(dir / sub)) {
      seeds.push_back({kind, entry.path(), readAll(entry.path())});
    }
  }
  std::sort(seeds.begin(), seeds.end(),
            [](const Seed& a, const Seed& b) { return a.path < b.path; });
  return seeds;
}

// Reads `path` as a file of `kind`; a refusal is what the readers owe hostile input.
void read(Kind kind, const std::string& path, const std::vector<BatchTensorSpec>& batch) {
  try {
    switch (kind) {
      case Kind::Archive:
        readGraphArchive(path);
        break;
      case Kind::Batch:
        readBatchFile(path, batch);
        break;
      case Kind::Ini:
        parseCommandLine({"--config", path}, suiteCatalog(), outputInfos());
        break;
    }
  } catch (const GraphArchiveError&) {
  } catch (const UsageError&) {
  }
}

int run(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: splitstep_reader_fuzz CORPUS [--seed N] [--runs N] [--seconds S]\n";
    return 2;
  }
  const fs::path dir = argv[1];
  std::uint64_t seed = 1;
  long runs = -1;
  double seconds = 10;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "--seed") {
      seed = std::stoull(argv[i + 1]);
    } else if (option == "--runs") {
      runs = std::stol(argv[i + 1]);
    } else if (option == "--seconds") {
      seconds = std::stod(argv[i + 1]);
    } else {
      std::cerr << "splitstep_reader_fuzz: unknown option " << option << '\n';
      return 2;
    }
  }
  const std::vector<Seed> seeds = corpus(dir);
  const std::vector<BatchTensorSpec> batch =
      readGraphArchive((dir / "archive" / "sequential.pt2").string()).batch;
  const fs::path scratch = fs::temp_directory_path() / fmt::format("reader-fuzz-{}", getpid());
  fs::create_directories(scratch);
  std::cout << fmt::format("seed {}; {} corpus files; each input is written to {} first\n", seed,
                           seeds.size(), scratch.string())
            << std::flush;
  Mutator m(seed);
  const auto start = std::chrono::steady_clock::now();
  long done = 0;
  // The corpus as it is first: its crashes are the seeds' reason to be there.
  for (const Seed& s : seeds) read(s.kind, s.path.string(), batch);
  for (;
       runs < 0 ? std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
                      seconds
                : done < runs;
       ++done) {
    const Seed& s = seeds[m.below(seeds.size())];
    std::string input = s.bytes;
    if (s.kind == Kind::Ini) {
      for (std::size_t i = 0, n = 1 + m.below(3); i < n; ++i) m.bytes(input);
    } else if (m.chance(90)) {
      input = mutateZip(input, m);
    } else {
      m.bytes(input);
    }
    const fs::path path = scratch / ("input" + s.path.extension().string());
    writeAll(path, input);
    try {
      read(s.kind, path.string(), batch);
    } catch (const std::exception& e) {
      std::cerr << fmt::format("finding after {} runs: {} from a change to {} ({}), kept at {}\n",
                               done, typeid(e).name(), s.path.string(), e.what(), path.string());
      return 1;
    }
  }
  // Not std::filesystem::remove_all, which resolves to LibTorch's copy of another ABI.
  for (const char* name : {"input.pt2", "input.pt", "input.ini"}) {
    std::remove((scratch / name).c_str());
  }
  rmdir(scratch.c_str());
  std::cout << fmt::format("{} runs, nothing but refusals\n", done);
  return 0;
}

}  // namespace
}  // namespace splitstep

int main(int argc, char** argv) { return splitstep::run(argc, argv); }
