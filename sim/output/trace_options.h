// What a simulation's trace keeps (--trace) and how trace.json is written (--trace-json): the names a
// user gives, declared once (common/named.h).
#pragma once

#include "common/named.h"

namespace pipegrid::output {

/// Which GPUs a trace keeps: all, or one per pipeline rank (TP rank 0 of DP replica 0) — the pipeline
/// picture at a size Perfetto opens — or none. Auto: all in a job of at most kTraceAllUpTo GPUs, one
/// per pipeline rank above (at 3072 GPUs every GPU's trace is gigabytes).
enum class TraceScope { Auto, All, Pipeline, Off };
inline constexpr Named<TraceScope> kTraceScopes[] = {
    {"auto", TraceScope::Auto}, {"all", TraceScope::All}, {"pipeline", TraceScope::Pipeline}, {"off", TraceScope::Off}};
constexpr int kTraceAllUpTo = 256;

/// How trace.json is written: plain, or gzip-compressed as trace.json.gz (Perfetto opens both). Auto:
/// gzip when the trace keeps more than kTraceAllUpTo GPUs.
enum class TraceJson { Auto, Gzip, Plain };
inline constexpr Named<TraceJson> kTraceJsons[] = {
    {"auto", TraceJson::Auto}, {"gzip", TraceJson::Gzip}, {"plain", TraceJson::Plain}};

}  // namespace pipegrid::output
