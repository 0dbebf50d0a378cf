#!/usr/bin/env bash
# bench/gen/load.sh — deterministic, parallel data generators for the gpuagg
# benchmark suites.  See bench/gen/README.md.
#
#   bench/gen/load.sh SUITE          SUITE = groupby | tpch | ssb | hits | ints
#
# Connection: the usual libpq environment (PGHOST, PGPORT, PGUSER, ...).
# PGDATABASE defaults to "bench" and is created when missing.
#
# Options (environment):
#   N=1e6      rows (groupby, hits, ints); 1e6 / 2.5e7 / 100000000 notation
#   K=100      groupby: number of groups of id1, id2, id4, id5 (id3, id6: N/K)
#   NA=0       groupby: percent of missing values (0..100, as db-benchmark)
#   SORTED=0   groupby: 1 = rows physically ordered by id1..id6 (NULLS FIRST)
#   PARTS=0    groupby: x and x_int hash-partitioned on id6 into PARTS
#              partitions (x_p0.., x_int_p0..); not with SORTED=1
#   SF=1       tpch, ssb: scale factor (1.5M orders, ~6M lines per SF; 0.1 works)
#   KEYS=1     tpch: 0 = no primary keys and lineitem indexes
#   PK=0       hits: 1 = ClickBench's former primary key
#   FREE=0     tpch: 1 = also lineitem_free, the same rows with money in
#              numeric columns without a typmod, as an application may
#              store what it is given: trailing zeros trimmed (display
#              scales 0 to 2; l_quantity 0)
#   JOBS=nproc parallel psql sessions
#   LOGGED=0   1 = ordinary (WAL-logged) tables loaded with
#              synchronous_commit=off instead of UNLOGGED tables
#
# Every value is a pure function of the row number (hashint8extended of the
# row/order/line number with a per-column seed), never random(): the same
# parameters give the same rows whatever JOBS is.  Only the physical order of
# the chunks in the heap depends on how the parallel sessions interleave
# (SORTED=1 tables have a fully deterministic physical order).
#
# Tables are UNLOGGED by default: no WAL is written (a logged groupby load
# writes ~1.4x its heap size in WAL and was up to 1.7x slower, README.md),
# and scans of an unlogged table cost the same as of a logged one.  The
# price: crash recovery empties an unlogged table (a clean restart does
# not); reload it then.
# Tables are created with autovacuum_enabled = false: they are static, and we
# VACUUM (ANALYZE) them ourselves after the load, so that hint bits and the
# visibility map are set before anything is timed, and no autovacuum starts in
# the middle of a benchmark.
set -euo pipefail

die() { echo "load.sh: $*" >&2; exit 1; }
usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-1}"; }

[ $# -ge 1 ] || usage
SUITE=$1
case $SUITE in groupby|tpch|ssb|hits|ints) ;; -h|--help) usage 0 ;; *) usage ;; esac

# num VALUE NAME: integer from 1e6 / 2.5e7 / 1000000 notation
num() {
  awk -v x="$1" 'BEGIN { if (x !~ /^[0-9]*\.?[0-9]+([eE]\+?[0-9]+)?$/) exit 1;
                         if (x + 0 != int(x + 0)) exit 1; printf "%.0f", x + 0 }' \
    || die "$2=$1 is not a whole number (forms: 1000000, 1e6, 2.5e7)"
}
# fnum VALUE NAME: a positive decimal (SF)
fnum() {
  awk -v x="$1" 'BEGIN { exit !(x ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ && x + 0 > 0) }' \
    || die "$2=$1 is not a positive number"
  echo "$1"
}

N=$(num "${N:-1e6}" N)
K=$(num "${K:-100}" K)
NA=$(num "${NA:-0}" NA)
SORTED=${SORTED:-0}
PARTS=$(num "${PARTS:-0}" PARTS)
SF=$(fnum "${SF:-1}" SF)
JOBS=$(num "${JOBS:-$(nproc)}" JOBS)
LOGGED=${LOGGED:-0}
[ "$N" -ge 1 ] || die "N must be >= 1"
[ "$JOBS" -ge 1 ] || die "JOBS must be >= 1"
[ "$NA" -le 100 ] || die "NA is a percent (0..100)"
case $SORTED in 0|1) ;; *) die "SORTED is 0 or 1" ;; esac
case $LOGGED in 0|1) ;; *) die "LOGGED is 0 or 1" ;; esac

export PGDATABASE=${PGDATABASE:-bench}
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
PSQL=(psql -X -q -v ON_ERROR_STOP=1)
if ! "${PSQL[@]}" -c 'select 1' >/dev/null 2>&1; then
  createdb "$PGDATABASE" || die "cannot connect to or create database $PGDATABASE"
  echo "created database $PGDATABASE"
fi

if [ "$LOGGED" = 1 ]; then
  PERSIST=""                                 # CREATE TABLE
  SESSION_SET="SET synchronous_commit = off;"
else
  PERSIST="UNLOGGED"                         # CREATE UNLOGGED TABLE
  SESSION_SET=""
fi
# Each chunk session: no JIT (it only adds compile time to a one-pass
# INSERT ... SELECT), no parallel plans (we parallelise by hand).
SESSION_SET="$SESSION_SET SET jit = off; SET max_parallel_workers_per_gather = 0;"
TABLE_OPTS="WITH (autovacuum_enabled = false)"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# H EXPR SEED: a uniformly distributed non-negative int8 (63 bits), a pure
# function of EXPR and SEED.  hashint8extended is PostgreSQL's Jenkins
# lookup3 hash of an int8 with a 64-bit seed (stable across versions and
# platforms: hash partitioning depends on it).
H() { echo "(hashint8extended($1, $2) & 9223372036854775807)"; }
# U EXPR SEED: a uniform float8 in [0, 1) with 52 random bits
U() { echo "(($(H "$1" "$2") >> 11)::float8 / 4503599627370496.0)"; }
# R EXPR SEED M: uniform integer in 1..M (modulo bias < M / 2^63)
R() { echo "(1 + $(H "$1" "$2") % $3)"; }

# run_chunks TOTAL SQLFN: runs "SQLFN lo hi" (which prints SQL) for JOBS
# slices of 1..TOTAL, each in its own psql session, in parallel.
run_chunks() {
  local total=$1 fn=$2 j lo hi pids=() fail=0
  for ((j = 0; j < JOBS; j++)); do
    lo=$((total * j / JOBS + 1)); hi=$((total * (j + 1) / JOBS))
    [ "$lo" -le "$hi" ] || continue
    { echo "$SESSION_SET"; "$fn" "$lo" "$hi"; } | "${PSQL[@]}" &
    pids+=($!)
  done
  for j in "${pids[@]}"; do wait "$j" || fail=1; done
  [ "$fail" = 0 ] || die "a chunk failed"
}

# run_parallel SQL...: each argument in its own session, all at once.
run_parallel() {
  local s pids=() fail=0
  for s in "$@"; do
    { echo "$SESSION_SET"; echo "$s"; } | "${PSQL[@]}" &
    pids+=($!)
  done
  for s in "${pids[@]}"; do wait "$s" || fail=1; done
  [ "$fail" = 0 ] || die "a statement failed"
}

gcd() { local a=$1 b=$2 t; while [ "$b" -ne 0 ]; do t=$((a % b)); a=$b; b=$t; done; echo "$a"; }
# coprime M: a multiplier near M/phi that is coprime to M (so v -> v*A mod M
# is a permutation of 0..M-1)
coprime() {
  local m=$1 a
  [ "$m" -le 2 ] && { echo 1; return; }
  a=$(awk -v m="$m" 'BEGIN { printf "%.0f", m * 0.6180339887498949 }')
  while [ "$(gcd "$a" "$m")" -ne 1 ]; do a=$((a + 1)); done
  echo "$a"
}

# mark LABEL: print the seconds since the last mark (phases of the load)
T_MARK=$(now)
mark() { local t; t=$(now); echo "  $1: $(secs "$T_MARK" "$t") s"; T_MARK=$t; }

TABLES=()          # tables of this suite, for the report
PARAMS=""          # for bench_gen
T_LOAD0=$(now)

########################################################################
# groupby: h2oai / duckdblabs db-benchmark, groupby-datagen.R
########################################################################
groupby_setup() {
  [ $((N / K)) -ge 1 ] || die "N/K must be >= 1"
  M3=$((N / K))                 # groups of id3 and id6 (R: N/K, integer)
  # db-benchmark NA: for each id column, as.integer(#distinct * NA/100)
  # distinct values are set to NA in every row holding them; the v columns
  # get NA in NA% of rows, chosen independently per column.
  NNA_K=$((K * NA / 100)); NNA_3=$((M3 * NA / 100))
  A_K=$(coprime "$K"); A_3=$(coprime "$M3")
  NA_PPM=$((NA * 10000))
  if [ "$K" -le 999 ]; then
    FMT_K="lpad(%s::text, 3, '0')"                     # sprintf("id%03d")
  else
    FMT_K="CASE WHEN %s < 1000 THEN lpad(%s::text, 3, '0') ELSE %s::text END"
  fi
  PARAMS="N=$N K=$K NA=$NA SORTED=$SORTED"
  if [ "$PARTS" -gt 0 ]; then
    [ "$SORTED" = 0 ] || die "PARTS needs SORTED=0"
    PARAMS+=" PARTS=$PARTS"
  fi
}

# CREATE TABLE name def: plain, or hash-partitioned on id6 into PARTS
# partitions name_p0.. (a partitioned table itself is neither UNLOGGED nor
# has storage options: its partitions are and have)
groupby_create() {
  local i
  if [ "$PARTS" = 0 ]; then
    echo "CREATE $PERSIST TABLE $1 $2 $TABLE_OPTS;"
    return
  fi
  echo "CREATE TABLE $1 $2 PARTITION BY HASH (id6);"
  for ((i = 0; i < PARTS; i++)); do
    echo "CREATE $PERSIST TABLE $1_p$i PARTITION OF $1 FOR VALUES WITH (MODULUS $PARTS, REMAINDER $i) $TABLE_OPTS;"
  done
}

# raw ids/values of rows lo..hi, with NAs, as int columns (+ g)
groupby_rows() {
  local lo=$1 hi=$2 id1 id2 id3 id4 id5 id6 v1 v2 v3
  idna() { # idna COL M NNA A: NULL for exactly NNA of the M values of COL
    # (v -> (v*A + B) mod M is a permutation of the values; B differs per
    # column, so each column loses a different set of values)
    local b
    if [ "$3" -gt 0 ]; then
      b=$(awk -v m="$2" -v c="${1#r}" 'BEGIN { x = c * 0.7548776662466927; printf "%.0f", int(m * (x - int(x))) }')
      echo "CASE WHEN ($1 * $4::int8 + $b) % $2 < $3 THEN NULL ELSE $1 END"
    else echo "$1"; fi
  }
  vna() { # vna EXPR SEED
    if [ "$NA_PPM" -gt 0 ]; then
      echo "CASE WHEN $(H g "$2") % 1000000 < $NA_PPM THEN NULL ELSE $1 END"
    else echo "$1"; fi
  }
  id1=$(idna r1 "$K" "$NNA_K" "$A_K"); id2=$(idna r2 "$K" "$NNA_K" "$A_K")
  id3=$(idna r3 "$M3" "$NNA_3" "$A_3"); id4=$(idna r4 "$K" "$NNA_K" "$A_K")
  id5=$(idna r5 "$K" "$NNA_K" "$A_K"); id6=$(idna r6 "$M3" "$NNA_3" "$A_3")
  v1=$(vna "$(R g 1007 5)::int4" 2007)
  v2=$(vna "$(R g 1008 15)::int4" 2008)
  # round(runif(N, max = 100), 6): a uniform multiple of 1e-6 in [0, 100]
  v3=$(vna "($(H g 1009) % 100000001)::float8 / 1000000" 2009)
  cat <<SQL
SELECT g, ($id1)::int4 AS id1, ($id2)::int4 AS id2, ($id3)::int4 AS id3,
       ($id4)::int4 AS id4, ($id5)::int4 AS id5, ($id6)::int4 AS id6,
       $v1 AS v1, $v2 AS v2, $v3 AS v3
FROM (SELECT g, $(R g 1001 "$K") AS r1, $(R g 1002 "$K") AS r2, $(R g 1003 "$M3") AS r3,
             $(R g 1004 "$K") AS r4, $(R g 1005 "$K") AS r5, $(R g 1006 "$M3") AS r6
      FROM (SELECT generate_series($lo::int8, $hi::int8) AS g) s
      OFFSET 0) r
SQL
}

# the text columns of x from the int ones
groupby_text_select() {
  local f1 f2
  f1=${FMT_K//%s/id1}; f2=${FMT_K//%s/id2}
  echo "SELECT 'id' || $f1 AS id1, 'id' || $f2 AS id2, 'id' || lpad(id3::text, 10, '0') AS id3, id4, id5, id6, v1, v2, v3"
}

groupby_chunk() {
  cat <<SQL
INSERT INTO x_int SELECT id1, id2, id3, id4, id5, id6, v1, v2, v3 FROM ($(groupby_rows "$1" "$2")) t;
INSERT INTO x $(groupby_text_select) FROM ($(groupby_rows "$1" "$2")) t;
SQL
}

groupby_stage_chunk() {
  echo "INSERT INTO x_stage $(groupby_rows "$1" "$2");"
}

groupby_load() {
  groupby_setup
  local xdef="(id1 text, id2 text, id3 text, id4 int4, id5 int4, id6 int4, v1 int4, v2 int4, v3 float8)"
  local idef="(id1 int4, id2 int4, id3 int4, id4 int4, id5 int4, id6 int4, v1 int4, v2 int4, v3 float8)"
  "${PSQL[@]}" -c "DROP TABLE IF EXISTS x, x_int, x_stage"
  if [ "$SORTED" = 0 ]; then
    { groupby_create x "$xdef"; groupby_create x_int "$idef"; } | "${PSQL[@]}"
    run_chunks "$N" groupby_chunk
  else
    # Generate in parallel into a staging table (with the row number g),
    # then write each table once, with CREATE TABLE AS, in (id1..id6 NULLS
    # FIRST, g) order: the order of data.table's setkeyv (NA first, C-locale
    # strings), g breaking ties so that the physical order is deterministic.
    # CREATE TABLE AS, unlike INSERT, never puts a row into free space left
    # on an earlier page, so the heap is exactly in that order; and its
    # SELECT may use a parallel sort.  For K <= 999 the 'id%03d' strings
    # sort like their numbers; for K > 999 x is sorted by the strings.
    "${PSQL[@]}" -c "CREATE UNLOGGED TABLE x_stage (g int8, ${idef#(} $TABLE_OPTS"
    run_chunks "$N" groupby_stage_chunk
    "${PSQL[@]}" -c "ANALYZE x_stage"
    mark "generate x_stage"
    # (x_stage.idN: the int columns, not the text output columns of x)
    local ord="" c
    for c in id1 id2 id3 id4 id5 id6; do ord+="x_stage.$c NULLS FIRST, "; done
    ord+="x_stage.g"
    local tord=$ord
    if [ "$K" -gt 999 ]; then
      tord="('id' || ${FMT_K//%s/x_stage.id1}) COLLATE \"C\" NULLS FIRST, "
      tord+="('id' || ${FMT_K//%s/x_stage.id2}) COLLATE \"C\" NULLS FIRST, ${ord#*id2 NULLS FIRST, }"
    fi
    local cols="id1, id2, id3, id4, id5, id6, v1, v2, v3"
    local w=$(( (JOBS + 1) / 2 - 1 ))      # parallel workers per sort, two sorts at once
    local sortset="SET work_mem = '256MB'; SET max_parallel_workers_per_gather = $w;"
    run_parallel \
      "$sortset CREATE $PERSIST TABLE x_int $TABLE_OPTS AS SELECT $cols FROM x_stage ORDER BY $ord;" \
      "$sortset CREATE $PERSIST TABLE x $TABLE_OPTS AS $(groupby_text_select) FROM x_stage ORDER BY $tord;"
    mark "sort into x, x_int"
    "${PSQL[@]}" -c "DROP TABLE x_stage"
  fi
  "${PSQL[@]}" <<SQL
COMMENT ON TABLE x IS 'db-benchmark groupby G1 (bench/gen/load.sh groupby $PARAMS)';
COMMENT ON TABLE x_int IS 'gpuagg bench: x with id1..id3 as int (bench/gen/load.sh groupby $PARAMS)';
SQL
  TABLES=(x x_int)
}

########################################################################
# tpch: the eight tables of the TPC-H specification (rev. 3) clause 4.2.3
# (their columns, types and value distributions; the text columns from a
# small vocabulary in place of the specification's grammar, keeping the
# words its queries look for), and lineitem_cents / lineitem_free, variants
# of lineitem for gpuagg's Q1 and Q6 measurements.
########################################################################
# TPC-H's 25 nations (N_NATIONKEY = index - 1) and their regions
NATIONS="(ARRAY['ALGERIA','ARGENTINA','BRAZIL','CANADA','EGYPT','ETHIOPIA','FRANCE','GERMANY',
'INDIA','INDONESIA','IRAN','IRAQ','JAPAN','JORDAN','KENYA','MOROCCO','MOZAMBIQUE','PERU','CHINA',
'ROMANIA','SAUDI ARABIA','VIETNAM','RUSSIA','UNITED KINGDOM','UNITED STATES'])"
NATION_REGIONS="(ARRAY['AFRICA','AMERICA','AMERICA','AMERICA','MIDDLE EAST','AFRICA','EUROPE','EUROPE',
'ASIA','ASIA','MIDDLE EAST','MIDDLE EAST','ASIA','MIDDLE EAST','AFRICA','AFRICA','AFRICA','AMERICA',
'ASIA','EUROPE','MIDDLE EAST','ASIA','EUROPE','EUROPE','AMERICA'])"
tpch_setup() {
  read -r ORDERS PARTS SUPPS CUSTS CLERKS < <(awk -v sf="$SF" 'BEGIN {
    o = int(1500000 * sf + 0.5); p = int(200000 * sf + 0.5); s = int(10000 * sf + 0.5);
    c = int(150000 * sf + 0.5); k = int(1000 * sf + 0.5);
    if (o < 1) o = 1; if (p < 1) p = 1; if (s < 1) s = 1; if (c < 3) c = 3; if (k < 1) k = 1;
    print o, p, s, c, k }')
  PARAMS="SF=$SF"
}

# text of a few words (TPC-H's comments): words of a hash's bit fields from
# a vocabulary that holds what the queries search for ('special',
# 'requests', 'pending', 'deposits', 'express', ...), cut to at most MAX
# characters.  tx HASH NWORDS MAX
TX_WORDS="(ARRAY['furiously','special','requests','pending','deposits','express','packages','accounts',
'carefully','quickly','slyly','blithely','ironic','regular','final','bold','even','unusual','silent',
'instructions','theodolites','platelets','foxes','ideas','dependencies','excuses','asymptotes',
'courts','dolphins','pinto','beans','warhorses','sheaves','sauternes','tithes','frets','dugouts',
'patterns','braids','hockey','players','somas','decoys','requests','waters','notornis','escapades',
'sleep','wake','are','haggle','nag','use','boost','affix','detect','integrate','cajole','among',
'above','about','according','across','after'])"
tx() {
  local i words=""
  for ((i = 0; i < $2; i++)); do words+="${words:+, }$TX_WORDS[1 + (($1 >> $((6 * i))) & 63)]"; done
  echo "left(concat_ws(' ', $words), $3)"
}
# a v-string (addresses): LEN characters of hashes in hex
vs() { echo "left(to_hex($1) || to_hex($1 # 6148914691236517205) || to_hex($1 # 3074457345618258602), ($2)::int4)"; }
# a phone number of nation NK: 'CC-LLL-LLL-LLLL', CC = NK + 10
phone() { echo "(($2) + 10)::text || '-' || (100 + ($1 >> 3) % 900) || '-' || (100 + ($1 >> 13) % 900) || '-' || (1000 + ($1 >> 23) % 9000)"; }

# lines of orders lo..hi, one row per line: int columns, money in cents
tpch_rows() {
  local lo=$1 hi=$2
  # o: order number 1..1.5M*SF; k = o*8 + l identifies the line.
  # O_ORDERDATE uniform in [1992-01-01, 1998-12-31 - 151 days = 1998-08-02]
  # (2406 days); 1..7 lines per order, uniform.
  cat <<SQL
SELECT o, l, od,
       ((o >> 3) << 5) | (o & 7) AS orderkey,
       pk, (pk + si * ($SUPPS / 4 + (pk - 1) / $SUPPS)) % $SUPPS + 1 AS sk,
       qty, $(retail_cents pk) * qty AS ext_cents,
       disc, tax, od + ship AS shipdate, od + com AS commitdate,
       od + ship + rcpt AS receiptdate, ra, hl
FROM (SELECT o, l, od,
             $(R "(o * 8 + l)" 3001 "$PARTS") AS pk,
             $(H "(o * 8 + l)" 3002) % 4 AS si,
             $(R "(o * 8 + l)" 3003 50) AS qty,
             $(H "(o * 8 + l)" 3004) % 11 AS disc,
             $(H "(o * 8 + l)" 3005) % 9 AS tax,
             ($(R "(o * 8 + l)" 3006 121))::int4 AS ship,
             (29 + $(R "(o * 8 + l)" 3007 61))::int4 AS com,
             ($(R "(o * 8 + l)" 3008 30))::int4 AS rcpt,
             $(H "(o * 8 + l)" 3009) % 2 AS ra,
             $(H "(o * 8 + l)" 3012) AS hl
      FROM (SELECT o, date '1992-01-01' + ($(H o 3010) % 2406)::int4 AS od,
                   generate_series(1::int8, $(R o 3011 7)) AS l
            FROM (SELECT generate_series($lo::int8, $hi::int8) AS o) s) ol
      OFFSET 0) r
SQL
}

# TPC-H: L_RETURNFLAG 'R' or 'A' (at random) when L_RECEIPTDATE <= CURRENTDATE
# (1995-06-17), else 'N'; L_LINESTATUS 'O' when L_SHIPDATE > CURRENTDATE,
# else 'F'.
RF="CASE WHEN receiptdate <= date '1995-06-17' THEN CASE WHEN ra = 0 THEN 'R' ELSE 'A' END ELSE 'N' END"
LS="CASE WHEN shipdate > date '1995-06-17' THEN 'O' ELSE 'F' END"

tpch_chunk() {
  # O_CUSTKEY: uniform over the customers whose key is not a multiple of 3
  cat <<SQL
INSERT INTO lineitem
SELECT orderkey, pk, sk, l, qty, ext_cents / 100.0, disc / 100.0, tax / 100.0,
       $RF, $LS, shipdate, commitdate, receiptdate,
       (ARRAY['DELIVER IN PERSON','COLLECT COD','NONE','TAKE BACK RETURN'])[1 + hl % 4],
       (ARRAY['REG AIR','AIR','RAIL','SHIP','TRUCK','MAIL','FOB'])[1 + (hl >> 2) % 7],
       $(tx "(hl >> 5)" 5 43)
FROM ($(tpch_rows "$1" "$2")) t;
INSERT INTO orders
SELECT orderkey, (r + (r - 1) / 2)::int4 AS custkey,
       CASE WHEN bool_and(shipdate <= date '1995-06-17') THEN 'F'
            WHEN bool_and(shipdate > date '1995-06-17') THEN 'O' ELSE 'P' END,
       round(sum(ext_cents * (100 + tax) * (100 - disc)) / 1000000.0, 2),
       od,
       (ARRAY['1-URGENT','2-HIGH','3-MEDIUM','4-NOT SPECIFIED','5-LOW'])[1 + ho % 5],
       'Clerk#' || lpad((1 + (ho >> 3) % $CLERKS)::text, 9, '0'),
       0,
       $(tx "(ho >> 20)" 7 78)
FROM (SELECT t.*, $(R o 3013 $((CUSTS - CUSTS / 3))) AS r, $(H o 3014) AS ho
      FROM ($(tpch_rows "$1" "$2")) t) t
GROUP BY o, orderkey, od, r, ho;
INSERT INTO lineitem_cents
SELECT orderkey, pk, sk, l, qty * 100, ext_cents, disc, tax,
       ascii($RF), ascii($LS), shipdate, commitdate, receiptdate
FROM ($(tpch_rows "$1" "$2")) t;
SQL
  [ "${FREE:-0}" = 1 ] && cat <<SQL
INSERT INTO lineitem_free
SELECT orderkey, pk, sk, l, qty::numeric, trim_scale((ext_cents / 100.0)::numeric(15,2)),
       trim_scale((disc / 100.0)::numeric(15,2)), trim_scale((tax / 100.0)::numeric(15,2)),
       $RF, $LS, shipdate, commitdate, receiptdate
FROM ($(tpch_rows "$1" "$2")) t;
SQL
  return 0
}

# PART and its four PARTSUPP rows (PS_SUPPKEY as clause 4.2.3 gives it)
P_WORDS="(ARRAY['almond','antique','aquamarine','azure','beige','bisque','black','blanched','blue',
'blush','brown','burlywood','burnished','chartreuse','chiffon','chocolate','coral','cornflower',
'cornsilk','cream','cyan','dark','deep','dim','dodger','drab','firebrick','floral','forest',
'frosted','gainsboro','ghost','goldenrod','green','grey','honeydew','hot','indian','ivory','khaki',
'lace','lavender','lawn','lemon','light','lime','linen','magenta','maroon','medium','metallic',
'midnight','mint','misty','moccasin','navajo','navy','olive','orange','orchid','pale','papaya',
'peach','peru','pink','plum','powder','puff','purple','red','rose','rosy','royal','saddle',
'salmon','sandy','seashell','sienna','sky','slate','smoke','snow','spring','steel','tan',
'thistle','tomato','turquoise','violet','wheat','white','yellow'])"
# a part's type, size and container from hash A (its mixed-radix digits:
# independent, unlike overlapping bit fields taken modulo 5 or 6); its
# name of 5 (or N) colour words from hash H likewise; its retail price in
# cents from its key (clause 4.2.3)
part_attrs() {
  echo "(ARRAY['STANDARD','SMALL','MEDIUM','LARGE','ECONOMY','PROMO'])[1 + $1 % 6] || ' ' ||
       (ARRAY['ANODIZED','BURNISHED','PLATED','POLISHED','BRUSHED'])[1 + $1 / 6 % 5] || ' ' ||
       (ARRAY['TIN','NICKEL','BRASS','STEEL','COPPER'])[1 + $1 / 30 % 5],
       (1 + $1 / 150 % 50)::int4,
       (ARRAY['SM','LG','MED','JUMBO','WRAP'])[1 + $1 / 7500 % 5] || ' ' ||
       (ARRAY['CASE','BOX','BAG','JAR','PKG','PACK','CAN','DRUM'])[1 + $1 / 37500 % 8]"
}
part_name() {
  local i words="" d=1
  for ((i = 0; i < $2; i++)); do words+="${words:+, }$P_WORDS[1 + $1 / $d % 92]"; d=$((d * 92)); done
  echo "concat_ws(' ', $words)"
}
retail_cents() { echo "(90000 + ($1) / 10 % 20001 + 100 * (($1) % 1000))"; }
tpch_part_chunk() {
  cat <<SQL
INSERT INTO part
SELECT p, $(part_name h 5),
       'Manufacturer#' || m, 'Brand#' || m || (1 + a / 1500000 % 5),
       $(part_attrs a),
       $(retail_cents p) / 100.0,
       $(tx "$(H p 3102)" 3 22)
FROM (SELECT p, h, a, 1 + a / 300000 % 5 AS m
      FROM (SELECT p, $(H p 3101) AS h, $(H p 3105) AS a
            FROM generate_series($1::int8, $2::int8) p) s) s;
INSERT INTO partsupp
SELECT p, (p + i * ($SUPPS / 4 + (p - 1) / $SUPPS)) % $SUPPS + 1,
       (1 + h % 9999)::int4, (100 + (h >> 14) % 99901) / 100.0,
       left($(tx "(h >> 31)" 5 99) || ' ' || $(tx "$(H "(p * 4 + i)" 3104)" 10 99), 198)
FROM (SELECT p, i, $(H "(p * 4 + i)" 3103) AS h
      FROM generate_series($1::int8, $2::int8) p, generate_series(0, 3) i) s;
SQL
}

# A customer's or supplier's rows: keys LO..HI (column KEY) with a hash h
# (seed SEED) and a nation nk; its name, address (up to ADDR characters),
# nation, phone and account balance (clause 4.2.3; seed ACCT).
# party_rows KEY SEED LO HI; party PREFIX KEY ADDR ACCT
party_rows() {
  echo "(SELECT $1, h, ((h >> 35) % 25)::int4 AS nk
      FROM (SELECT $1, $(H "$1" "$2") AS h FROM generate_series($3::int8, $4) $1) s) s"
}
party() {
  echo "'$1#' || lpad($2::text, 9, '0'), $(vs h "(10 + (h >> 40) % $(($3 - 9)))"), nk,
       $(phone "(h >> 1)" nk), (-99999 + $(H "$2" "$4") % 1099999) / 100.0"
}

tpch_customer_chunk() {
  cat <<SQL
INSERT INTO customer
SELECT c, $(party Customer c 40 3203),
       (ARRAY['AUTOMOBILE','BUILDING','FURNITURE','MACHINERY','HOUSEHOLD'])[1 + (h >> 50) % 5],
       $(tx "$(H c 3202)" 9 116)
FROM $(party_rows c 3201 "$1" "$2::int8");
SQL
}

# SUPPLIER: S_COMMENT of SF * 5 suppliers has 'Customer ... Complaints',
# of SF * 5 others 'Customer ... Recommends' (Q16 looks for them)
tpch_supplier_chunk() {
  cat <<SQL
INSERT INTO supplier
SELECT s, $(party Supplier s 40 3304),
       CASE (h >> 45) % 2000
            WHEN 0 THEN $(tx "$(H s 3302)" 2 30) || ' Customer ' || $(tx "$(H s 3303)" 2 30) || ' Complaints'
            WHEN 1 THEN $(tx "$(H s 3302)" 2 30) || ' Customer ' || $(tx "$(H s 3303)" 2 30) || ' Recommends'
            ELSE $(tx "$(H s 3302)" 8 100) END
FROM $(party_rows s 3301 "$1" "$2::int8");
SQL
}

tpch_load() {
  other_suite lineorder SSB
  tpch_setup
  "${PSQL[@]}" <<SQL
DROP TABLE IF EXISTS lineitem, lineitem_cents, orders, customer, part, partsupp, supplier, nation, region;
CREATE $PERSIST TABLE region (
  r_regionkey int4 NOT NULL, r_name char(25) NOT NULL, r_comment varchar(152)) $TABLE_OPTS;
CREATE $PERSIST TABLE nation (
  n_nationkey int4 NOT NULL, n_name char(25) NOT NULL, n_regionkey int4 NOT NULL,
  n_comment varchar(152)) $TABLE_OPTS;
CREATE $PERSIST TABLE supplier (
  s_suppkey int4 NOT NULL, s_name char(25) NOT NULL, s_address varchar(40) NOT NULL,
  s_nationkey int4 NOT NULL, s_phone char(15) NOT NULL, s_acctbal numeric(15,2) NOT NULL,
  s_comment varchar(101) NOT NULL) $TABLE_OPTS;
CREATE $PERSIST TABLE customer (
  c_custkey int4 NOT NULL, c_name varchar(25) NOT NULL, c_address varchar(40) NOT NULL,
  c_nationkey int4 NOT NULL, c_phone char(15) NOT NULL, c_acctbal numeric(15,2) NOT NULL,
  c_mktsegment char(10) NOT NULL, c_comment varchar(117) NOT NULL) $TABLE_OPTS;
CREATE $PERSIST TABLE part (
  p_partkey int4 NOT NULL, p_name varchar(55) NOT NULL, p_mfgr char(25) NOT NULL,
  p_brand char(10) NOT NULL, p_type varchar(25) NOT NULL, p_size int4 NOT NULL,
  p_container char(10) NOT NULL, p_retailprice numeric(15,2) NOT NULL,
  p_comment varchar(23) NOT NULL) $TABLE_OPTS;
CREATE $PERSIST TABLE partsupp (
  ps_partkey int4 NOT NULL, ps_suppkey int4 NOT NULL, ps_availqty int4 NOT NULL,
  ps_supplycost numeric(15,2) NOT NULL, ps_comment varchar(199) NOT NULL) $TABLE_OPTS;
CREATE $PERSIST TABLE orders (
  o_orderkey int8 NOT NULL, o_custkey int4 NOT NULL, o_orderstatus char(1) NOT NULL,
  o_totalprice numeric(15,2) NOT NULL, o_orderdate date NOT NULL,
  o_orderpriority char(15) NOT NULL, o_clerk char(15) NOT NULL,
  o_shippriority int4 NOT NULL, o_comment varchar(79) NOT NULL) $TABLE_OPTS;
CREATE $PERSIST TABLE lineitem (
  l_orderkey int8 NOT NULL, l_partkey int4 NOT NULL, l_suppkey int4 NOT NULL,
  l_linenumber int4 NOT NULL, l_quantity numeric(15,2) NOT NULL,
  l_extendedprice numeric(15,2) NOT NULL, l_discount numeric(15,2) NOT NULL,
  l_tax numeric(15,2) NOT NULL, l_returnflag char(1) NOT NULL, l_linestatus char(1) NOT NULL,
  l_shipdate date NOT NULL, l_commitdate date NOT NULL, l_receiptdate date NOT NULL,
  l_shipinstruct char(25) NOT NULL, l_shipmode char(10) NOT NULL,
  l_comment varchar(44) NOT NULL) $TABLE_OPTS;
-- The same rows with integer money (x100: cents, or hundredths of a unit of
-- quantity) and the flags as int2 ASCII codes, which gpuagg can group by and
-- which sort like the letters: A=65 F=70 N=78 O=79 R=82 (chr() gives them back).
CREATE $PERSIST TABLE lineitem_cents (
  l_orderkey int8, l_partkey int4, l_suppkey int4, l_linenumber int4,
  l_quantity int8, l_extendedprice int8, l_discount int8, l_tax int8,
  l_returnflag int2, l_linestatus int2,
  l_shipdate date, l_commitdate date, l_receiptdate date) $TABLE_OPTS;
COMMENT ON TABLE lineitem IS 'TPC-H lineitem (bench/gen/load.sh tpch $PARAMS)';
COMMENT ON TABLE lineitem_cents IS 'lineitem with money x100 as int8, flags as int2 ASCII codes (bench/gen/load.sh tpch $PARAMS)';
INSERT INTO region
SELECT r, n, $(tx "$(H r 3401)" 8 152)
  FROM unnest(ARRAY['AFRICA','AMERICA','ASIA','EUROPE','MIDDLE EAST']) WITH ORDINALITY AS v(n, r1),
       LATERAL (SELECT (r1 - 1)::int4 AS r) k;
INSERT INTO nation
SELECT (i - 1)::int4, n, r, $(tx "$(H i 3402)" 8 152)
  FROM unnest($NATIONS,
              ARRAY[0,1,1,1,4,0,3,3,2,2,4,4,2,4,0,0,0,1,2,3,4,2,3,3,1]) WITH ORDINALITY AS v(n, r, i);
DROP TABLE IF EXISTS lineitem_free;
SQL
  TABLES=(lineitem lineitem_cents orders customer part partsupp supplier nation region)
  if [ "${FREE:-0}" = 1 ]; then
    "${PSQL[@]}" <<SQL
CREATE $PERSIST TABLE lineitem_free (
  l_orderkey int8, l_partkey int4, l_suppkey int4, l_linenumber int4,
  l_quantity numeric, l_extendedprice numeric, l_discount numeric, l_tax numeric,
  l_returnflag char(1), l_linestatus char(1),
  l_shipdate date, l_commitdate date, l_receiptdate date) $TABLE_OPTS;
COMMENT ON TABLE lineitem_free IS 'lineitem with money in numeric columns without a typmod, trailing zeros trimmed (bench/gen/load.sh tpch $PARAMS)';
SQL
    TABLES+=(lineitem_free)
  fi
  run_chunks "$ORDERS" tpch_chunk
  run_chunks "$PARTS" tpch_part_chunk
  run_chunks "$CUSTS" tpch_customer_chunk
  run_chunks "$SUPPS" tpch_supplier_chunk
}

# The primary keys of clause 1.4, and the two lineitem indexes without which
# PostgreSQL runs Q17's and Q20's correlated subqueries by scanning lineitem
# once per outer row (Q17 took 21 s at SF 0.1): built after the VACUUM, a
# session a table (lineitem's two one after the other: ADD PRIMARY KEY
# locks the table), each with parallel workers (KEYS=0: none).
tpch_after_vacuum() {
  [ "${KEYS:-1}" = 1 ] || return 0
  local w=$((JOBS > 8 ? 8 : JOBS))
  run_parallel \
    "SET max_parallel_maintenance_workers = $w; ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber); CREATE INDEX ON lineitem (l_partkey, l_suppkey);" \
    "ALTER TABLE orders ADD PRIMARY KEY (o_orderkey); CREATE INDEX ON orders (o_custkey);" \
    "ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);" \
    "ALTER TABLE part ADD PRIMARY KEY (p_partkey); ALTER TABLE customer ADD PRIMARY KEY (c_custkey);" \
    "ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey); ALTER TABLE nation ADD PRIMARY KEY (n_nationkey); ALTER TABLE region ADD PRIMARY KEY (r_regionkey);"
}

########################################################################
# ssb: the Star Schema Benchmark (O'Neil, O'Neil, Chen, Revilak), its
# lineorder fact table and four dimensions (customer, supplier, part,
# date), as its dbgen makes them from TPC-H's: 6M*SF lines of 1.5M*SF
# orders, 30,000*SF customers, 2,000*SF suppliers, 200,000*(1 +
# log2 SF) parts (200,000*SF below SF 1), the 2,556 days of 1992-1998.
# Names and columns as bench/queries/ssb.sql's queries read them.
########################################################################
ssb_setup() {
  read -r ORDERS PARTS SUPPS CUSTS < <(awk -v sf="$SF" 'BEGIN {
    o = int(1500000 * sf + 0.5); s = int(2000 * sf + 0.5); c = int(30000 * sf + 0.5);
    p = sf >= 1 ? 200000 * int(1 + log(sf) / log(2) + 1e-9) : int(200000 * sf + 0.5);
    if (o < 1) o = 1; if (p < 1) p = 1; if (s < 1) s = 1; if (c < 1) c = 1;
    print o, p, s, c }')
  PARAMS="SF=$SF"
}

# a city: the nation's name cut or padded to 9 characters, then a digit
ssb_city() { echo "rpad($NATIONS[1 + $1], 9) || ($2)::text"; }

ssb_chunk() {
  # a line: partkey, suppkey, quantity, discount, tax as TPC-H's; prices in
  # cents; lo_revenue = extendedprice * (100 - discount) / 100;
  # lo_supplycost = 6/10 of the part's price; lo_ordtotalprice its order's
  cat <<SQL
INSERT INTO lineorder
SELECT orderkey, l, custkey, pk, sk, to_char(od, 'YYYYMMDD')::int4,
       (ARRAY['1-URGENT','2-HIGH','3-MEDIUM','4-NOT SPECIFIED','5-LOW'])[1 + ho % 5], '0',
       qty, ext, sum(ext * (100 + tax) * (100 - disc) / 10000) OVER (PARTITION BY o),
       disc, ext * (100 - disc) / 100, price * 6 / 10, tax,
       to_char(od + com, 'YYYYMMDD')::int4,
       (ARRAY['REG AIR','AIR','RAIL','SHIP','TRUCK','MAIL','FOB'])[1 + hl % 7]
FROM (SELECT o, l, od, ((o >> 3) << 5) | (o & 7) AS orderkey, ho, hl,
             $(R o 5013 "$CUSTS") AS custkey, pk, $(R "(o * 8 + l)" 5002 "$SUPPS") AS sk,
             qty, disc, tax, com, price, qty * price AS ext
      FROM (SELECT o, l, od, ho, hl, pk, qty, disc, tax, com,
                   $(retail_cents pk) AS price
            FROM (SELECT o, l, od, $(H o 5014) AS ho, $(H "(o * 8 + l)" 5012) AS hl,
                         $(R "(o * 8 + l)" 5001 "$PARTS") AS pk,
                         $(R "(o * 8 + l)" 5003 50) AS qty,
                         $(H "(o * 8 + l)" 5004) % 11 AS disc,
                         $(H "(o * 8 + l)" 5005) % 9 AS tax,
                         (29 + $(R "(o * 8 + l)" 5007 61))::int4 AS com
                  FROM (SELECT o, date '1992-01-01' + ($(H o 5010) % 2406)::int4 AS od,
                               generate_series(1::int8, $(R o 5011 7)) AS l
                        FROM generate_series($1::int8, $2::int8) o) ol) r
            OFFSET 0) r) t;
SQL
}

ssb_dim_chunk() {
  # keys lo..hi of each dimension that has them (the slices cover the largest)
  cat <<SQL
INSERT INTO part
SELECT p, $(part_name h 2),
       'MFGR#' || m, 'MFGR#' || m || c, 'MFGR#' || m || c || (1 + a / 7500000 % 40),
       $P_WORDS[1 + h / 8464 % 92],
       $(part_attrs a)
FROM (SELECT p, h, a, 1 + a / 300000 % 5 AS m, 1 + a / 1500000 % 5 AS c
      FROM (SELECT p, $(H p 5101) AS h, $(H p 5102) AS a
            FROM generate_series($1::int8, LEAST($2::int8, $PARTS)) p) s) s;
INSERT INTO customer
SELECT c, 'Customer#' || lpad(c::text, 9, '0'), $(vs h "(10 + (h >> 40) % 16)"),
       $(ssb_city nk "(h >> 20) % 10"), $NATIONS[1 + nk], $NATION_REGIONS[1 + nk],
       $(phone "(h >> 1)" nk),
       (ARRAY['AUTOMOBILE','BUILDING','FURNITURE','MACHINERY','HOUSEHOLD'])[1 + (h >> 50) % 5]
FROM $(party_rows c 5201 "$1" "LEAST($2::int8, $CUSTS)");
INSERT INTO supplier
SELECT s, 'Supplier#' || lpad(s::text, 9, '0'), $(vs h "(10 + (h >> 40) % 16)"),
       $(ssb_city nk "(h >> 20) % 10"), $NATIONS[1 + nk], $NATION_REGIONS[1 + nk],
       $(phone "(h >> 1)" nk)
FROM $(party_rows s 5301 "$1" "LEAST($2::int8, $SUPPS)");
SQL
}

# TPC-H and SSB both have customer, supplier and part: one database each
other_suite() {
  [ -z "$("${PSQL[@]}" -tAc "SELECT to_regclass('$1')")" ] ||
    die "this database holds $2's tables ($1): load $SUITE into a database of its own (PGDATABASE=$SUITE)"
}

ssb_load() {
  other_suite orders TPC-H
  ssb_setup
  "${PSQL[@]}" <<SQL
DROP TABLE IF EXISTS lineorder, customer, supplier, part, date;
CREATE $PERSIST TABLE lineorder (
  lo_orderkey int8 NOT NULL, lo_linenumber int4 NOT NULL, lo_custkey int4 NOT NULL,
  lo_partkey int4 NOT NULL, lo_suppkey int4 NOT NULL, lo_orderdate int4 NOT NULL,
  lo_orderpriority char(15) NOT NULL, lo_shippriority char(1) NOT NULL,
  lo_quantity int4 NOT NULL, lo_extendedprice int4 NOT NULL, lo_ordtotalprice int4 NOT NULL,
  lo_discount int4 NOT NULL, lo_revenue int4 NOT NULL, lo_supplycost int4 NOT NULL,
  lo_tax int4 NOT NULL, lo_commitdate int4 NOT NULL, lo_shipmode char(10) NOT NULL) $TABLE_OPTS;
CREATE $PERSIST TABLE customer (
  c_custkey int4 NOT NULL, c_name varchar(25) NOT NULL, c_address varchar(25) NOT NULL,
  c_city char(10) NOT NULL, c_nation char(15) NOT NULL, c_region char(12) NOT NULL,
  c_phone char(15) NOT NULL, c_mktsegment char(10) NOT NULL) $TABLE_OPTS;
CREATE $PERSIST TABLE supplier (
  s_suppkey int4 NOT NULL, s_name char(25) NOT NULL, s_address varchar(25) NOT NULL,
  s_city char(10) NOT NULL, s_nation char(15) NOT NULL, s_region char(12) NOT NULL,
  s_phone char(15) NOT NULL) $TABLE_OPTS;
CREATE $PERSIST TABLE part (
  p_partkey int4 NOT NULL, p_name varchar(22) NOT NULL, p_mfgr char(6) NOT NULL,
  p_category char(7) NOT NULL, p_brand1 char(9) NOT NULL, p_color varchar(11) NOT NULL,
  p_type varchar(25) NOT NULL, p_size int4 NOT NULL, p_container char(10) NOT NULL) $TABLE_OPTS;
CREATE $PERSIST TABLE date (
  d_datekey int4 NOT NULL, d_date char(18) NOT NULL, d_dayofweek char(9) NOT NULL,
  d_month char(9) NOT NULL, d_year int4 NOT NULL, d_yearmonthnum int4 NOT NULL,
  d_yearmonth char(7) NOT NULL, d_daynuminweek int4 NOT NULL, d_daynuminmonth int4 NOT NULL,
  d_daynuminyear int4 NOT NULL, d_monthnuminyear int4 NOT NULL, d_weeknuminyear int4 NOT NULL,
  d_sellingseason varchar(12) NOT NULL, d_lastdayinweekfl bool NOT NULL,
  d_lastdayinmonthfl bool NOT NULL, d_holidayfl bool NOT NULL, d_weekdayfl bool NOT NULL) $TABLE_OPTS;
COMMENT ON TABLE lineorder IS 'Star Schema Benchmark lineorder (bench/gen/load.sh ssb $PARAMS)';
INSERT INTO date
SELECT to_char(d, 'YYYYMMDD')::int4, to_char(d, 'FMMonth FMDD, YYYY'), to_char(d, 'FMDay'),
       to_char(d, 'FMMonth'), extract(year FROM d)::int4, to_char(d, 'YYYYMM')::int4,
       to_char(d, 'Mon') || to_char(d, 'YYYY'), extract(isodow FROM d)::int4 % 7 + 1,
       extract(day FROM d)::int4, extract(doy FROM d)::int4, extract(month FROM d)::int4,
       (extract(doy FROM d)::int4 - 1) / 7 + 1,
       CASE WHEN extract(month FROM d) = 12 THEN 'Christmas'
            WHEN extract(month FROM d) IN (6, 7, 8) THEN 'Summer'
            WHEN extract(month FROM d) IN (1, 2) THEN 'Winter'
            WHEN extract(month FROM d) IN (3, 4, 5) THEN 'Spring' ELSE 'Fall' END,
       extract(isodow FROM d) = 6, d = (date_trunc('month', d) + interval '1 month - 1 day')::date,
       to_char(d, 'MMDD') IN ('0101', '0704', '1225', '1231'), extract(isodow FROM d) < 6
  FROM generate_series(date '1992-01-01', date '1998-12-31', interval '1 day') g, LATERAL (SELECT g::date AS d) x;
SQL
  TABLES=(lineorder customer supplier part date)
  run_chunks "$ORDERS" ssb_chunk
  run_chunks "$(( PARTS > CUSTS ? (PARTS > SUPPS ? PARTS : SUPPS) : (CUSTS > SUPPS ? CUSTS : SUPPS) ))" ssb_dim_chunk
}

########################################################################
# hits: ClickBench's table, all 105 columns of its PostgreSQL create.sql
# (names unquoted, i.e. lower case; the same types, NOT NULL), synthetic
# rows.  The columns that ClickBench's 43 queries read follow the
# reference's published statistics (bench/gen/README.md); the others get
# plausible small values, mostly per user, and the text columns that no query
# reads are mostly empty, as in the reference.  No primary key unless PK=1
# (the current create.sql has none; older ones had PRIMARY KEY (CounterID,
# EventDate, UserID, EventTime, WatchID)).
########################################################################
# pl EXPR SEED A M: power law on 1..M, P(r) ~ r^-A (0 < A < 1), by inverting the
# continuous CDF: r = floor((1 + u (M^(1-A) - 1))^(1/(1-A))).
pl() {
  local b mb
  b=$(awk -v a="$3" 'BEGIN { printf "%.17g", 1 - a }')
  mb=$(awk -v m="$4" -v b="$b" 'BEGIN { printf "%.17g", m ^ b - 1 }')
  echo "LEAST(floor(power(1 + $(U "$1" "$2") * $mb, 1 / $b::float8))::int8, $4)"
}
# lu EXPR SEED M: log-uniform on 1..M, P(r) ~ 1/r: r = floor(M^u)
lu() { echo "LEAST(floor(exp($(U "$1" "$2") * ln($3::float8)))::int8, $3)"; }
# bits H LO M: field (H >> LO) % M of a 63-bit hash H, as int2
bits() { echo "(($1 >> $2) % $3)::int2"; }

hits_setup() {
  # distinct-value pools scale with N (ClickBench: 1e8 rows)
  read -r NU NP NURL NREF < <(awk -v n="$N" 'BEGIN {
    u = int(0.1833 * n + 0.5); p = int(0.1014 * n + 0.5); l = int(0.3061 * n + 0.5);
    r = int(0.1 * n + 0.5);
    if (u < 1) u = 1; if (p < 1) p = 1; if (l < 1) l = 1; if (r < 1) r = 1; print u, p, l, r }')
  PK=${PK:-0}
  case $PK in 0|1) ;; *) die "PK is 0 or 1" ;; esac
  PARAMS="N=$N"
  [ "$PK" = 0 ] || PARAMS+=" PK=1"
}

hits_chunk() {
  local lo=$1 hi=$2
  # per-row draws from g (seeds 4xxx; hr and hs: bit fields of two row
  # hashes); per-user attributes from the user rank ur (seeds 5xxx; hu: bit
  # fields of a user hash): a user keeps his region, IP, phone, screen,
  # browser and profile.
  cat <<SQL
INSERT INTO hits
SELECT ((($(H g 4001) >> 32)) << 32) | g AS WatchID,
       $(bits hu 0 10) AS JavaEnable,
       CASE WHEN $(H url 4020) % 20 = 0 THEN ''
            ELSE CASE WHEN $(H url 4021) % 1000 = 0 THEN 'Google ' ELSE '' END
                 || (ARRAY['Купить','News','Погода','Video','Auto','Работа','Forum','Maps'])[1 + $(H url 4022) % 8]
                 || ' ' || (url % 50000) || ' - ' || site END AS Title,
       1::int2 AS GoodEvent,
       timestamp '2013-07-01' + ts * interval '1 second' AS EventTime,
       date '2013-07-01' + (ts / 86400)::int4 AS EventDate,
       (($(lu g 4003 6506) - 1) * 4001 + 61) % 6506 + 1 AS CounterID,
       CASE WHEN $(U g 4008) < 0.85 THEN hashint8(ur) ELSE hashint8(g + 1000000000000) END AS ClientIP,
       CASE WHEN $(U ur 5002) < 0.9 THEN rr_user ELSE rr_row END AS RegionID,
       hashint8extended(ur, 5001) AS UserID,
       $(bits hr 0 4) AS CounterClass,
       $(bits hu 4 90) AS OS,
       $(bits hu 11 160) AS UserAgent,
       CASE WHEN $(H url 4010) % 5000 = 0
            THEN 'http://www.google.ru/search?q=' || to_hex(hashint8extended(url, 4011))
            ELSE 'http://' || site
                 || '/' || (ARRAY['belgorod','page','catalog','news','cars','search','doska','video'])[1 + $(H url 4013) % 8]
                 || '/' || (url % 100000) || '.html' || CASE WHEN url > 100000 THEN '?id=' || url ELSE '' END
       END AS URL,
       CASE WHEN rf = 0 THEN ''
            ELSE (ARRAY['http://','https://','http://www.','https://www.'])[1 + $(H rf 4024) % 4]
                 || (ARRAY['yandex.ru','google.ru','mail.ru','vk.com','go.mail.ru','rambler.ru','bing.com','avito.ru',
                           'liveinternet.ru','odnoklassniki.ru','auto.ru','kinopoisk.ru','irr.ru','ya.ru','nigma.ru','market.yandex.ru'])[$(lu rf 4025 16)]
                 || '/' || (ARRAY['search','clck','away','r','redirect','catalog'])[1 + $(H rf 4026) % 6]
                 || '?' || rf END AS Referer,
       CASE WHEN $(U g 4009) < 0.09 THEN 1 ELSE 0 END::int2 AS IsRefresh,
       $(bits hr 2 16) AS RefererCategoryID,
       rr_row AS RefererRegionID,
       $(bits hr 6 16) AS URLCategoryID,
       rr_user AS URLRegionID,
       rw AS ResolutionWidth,
       rh AS ResolutionHeight,
       (ARRAY[24,32,16])[1 + (hu >> 19) % 3]::int2 AS ResolutionDepth,
       $(bits hu 21 12) AS FlashMajor,
       $(bits hu 25 10) AS FlashMinor,
       '' AS FlashMinor2,
       $(bits hr 10 5) AS NetMajor,
       $(bits hr 13 10) AS NetMinor,
       $(bits hu 29 40) AS UserAgentMajor,
       ((hu >> 35) % 10)::text AS UserAgentMinor,
       CASE WHEN (hu >> 39) % 20 = 0 THEN 0 ELSE 1 END::int2 AS CookieEnable,
       CASE WHEN (hu >> 44) % 20 = 0 THEN 0 ELSE 1 END::int2 AS JavascriptEnable,
       mob::int::int2 AS IsMobile,
       CASE WHEN mob THEN 1 + mr % 8 ELSE 0 END::int2 AS MobilePhone,
       CASE WHEN NOT mob THEN ''
            WHEN mr <= 16 THEN (ARRAY['iPad','iPhone','A500','N8-00','ONE TOUCH 6030A','GT-P7300B','GT-I9500','3110000',
                                      'iPho','eagle75','GT-I9300','HTC One','Lumia 920','SM-T211','Nexus 7','ME173X'])[mr]
            ELSE 'Model ' || mr END AS MobilePhoneModel,
       '' AS Params,
       (hu / 1000 % 100000)::int4 AS IPNetworkID,
       CASE WHEN sp > 0 THEN 2 ELSE (ARRAY[0,0,0,1,-1,6,6,3,4,5,7,8,9,10])[1 + (hr >> 17) % 14] END::int2 AS TraficSourceID,
       CASE WHEN sp > 0 THEN (ARRAY[2,3,1,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39])[$(lu g 4006 39)]
            ELSE 0 END::int2 AS SearchEngineID,
       CASE WHEN sp > 0 THEN to_hex(hashint8extended(sp, 4007)) || ' ' || sp ELSE '' END AS SearchPhrase,
       CASE WHEN $(U g 4004) < 0.0063
            THEN (ARRAY[2,27,13,45,44,3,52,50,41,4,15,21,8,19,33,61,5,7,11,60])[$(lu g 4005 20)]
            ELSE 0 END::int2 AS AdvEngineID,
       CASE WHEN (hr >> 21) % 50 = 0 THEN 1 ELSE 0 END::int2 AS IsArtifical,
       GREATEST(rw - (hr >> 27) % 40, 0)::int2 AS WindowClientWidth,
       GREATEST(rh - (hr >> 33) % 200, 0)::int2 AS WindowClientHeight,
       tz AS ClientTimeZone,
       timestamp '2013-07-01' + (ts + tz * 3600) * interval '1 second' AS ClientEventTime,
       $(bits hu 52 6) AS SilverlightVersion1,
       $(bits hu 55 10) AS SilverlightVersion2,
       ((hu >> 40) % 100)::int4 AS SilverlightVersion3,
       $(bits hu 58 4) AS SilverlightVersion4,
       (ARRAY['utf-8','windows-1251','koi8-r'])[1 + (hu >> 50) % 3] AS PageCharset,
       ((hu >> 30) % 1000)::int4 AS CodeVersion,
       CASE WHEN hq % 20 = 0 THEN 1 ELSE 0 END::int2 AS IsLink,
       CASE WHEN hq / 20 % 100 = 0 THEN 1 ELSE 0 END::int2 AS IsDownload,
       $(bits hr 52 2) AS IsNotBounce,
       CASE WHEN (hu >> 8) % 3 = 0 THEN 0 ELSE hashint8extended(ur, 5010) END AS FUniqID,
       CASE WHEN (hr >> 53) % 100 = 0 THEN 'http://' || site || '/' ELSE '' END AS OriginalURL,
       (hs % 2147483647)::int4 AS HID,
       0::int2 AS IsOldCounter,
       $(bits hr 55 2) AS IsEvent,
       0::int2 AS IsParameter,
       CASE WHEN hq / 2000 % 10 = 0 THEN 1 ELSE 0 END::int2 AS DontCountHits,
       0::int2 AS WithHash,
       (ARRAY['5','D','F','E'])[1 + (hr >> 60) % 4]::char AS HitColor,
       timestamp '2013-07-01' + (ts + 3 * 3600) * interval '1 second' AS LocalEventTime,
       $(bits hu 13 7) AS Age,
       $(bits hu 17 3) AS Sex,
       $(bits hu 23 5) AS Income,
       $(bits hu 33 1000) AS Interests,
       CASE WHEN hq / 20000 % 100 = 0 THEN 1 ELSE 0 END::int2 AS Robotness,
       hashint8(g + 2000000000000) AS RemoteIP,
       ((hs >> 31) % 10000)::int4 AS WindowName,
       ((hs >> 45) % 1000)::int4 AS OpenerName,
       $(bits hs 10 20) AS HistoryLength,
       (ARRAY['ru','en','uk','be','kk','de','tr'])[$(lu ur 5011 7)] AS BrowserLanguage,
       (ARRAY['ru','ua','by','kz','de','us','tr'])[$(lu ur 5012 7)] AS BrowserCountry,
       '' AS SocialNetwork,
       '' AS SocialAction,
       0::int2 AS HTTPError,
       (hs % 1000)::int4 AS SendTiming,
       ((hs >> 10) % 200)::int4 AS DNSTiming,
       ((hs >> 18) % 300)::int4 AS ConnectTiming,
       ((hs >> 27) % 2000)::int4 AS ResponseStartTiming,
       ((hs >> 38) % 3000)::int4 AS ResponseEndTiming,
       ((hs >> 50) % 5000)::int4 AS FetchTiming,
       0::int2 AS SocialSourceNetworkID,
       '' AS SocialSourcePage,
       0::int8 AS ParamPrice,
       '' AS ParamOrderID,
       '' AS ParamCurrency,
       0::int2 AS ParamCurrencyID,
       '' AS OpenstatServiceName,
       '' AS OpenstatCampaignID,
       '' AS OpenstatAdID,
       '' AS OpenstatSourceID,
       CASE WHEN hq / 2000000 % 50 = 0 THEN 'yandex' ELSE '' END AS UTMSource,
       '' AS UTMMedium,
       '' AS UTMCampaign,
       '' AS UTMContent,
       '' AS UTMTerm,
       '' AS FromTag,
       0::int2 AS HasGCLID,
       CASE WHEN rf = 1 THEN 3594120000172545465 ELSE hashint8extended(rf, 4027) END AS RefererHash,
       CASE WHEN url = 2 THEN 2868770270353813622 ELSE hashint8extended(url, 4028) END AS URLHash,
       0 AS CLID
FROM (SELECT g, ur, ts, url, rf, hr, hs, hu, rw, rh, $(H g 4102) AS hq,
             $(lu ur 5008 166) AS mr,
             $(U ur 5003) < 0.07 AS mob,
             ((hu >> 9) % 25 - 12)::int2 AS tz,
             (ARRAY['liver.ru','mail.ru','yandex.ru','auto.ru','avito.ru','kinopoisk.ru','rambler.ru','irr.ru'])[$(lu url 4012 8)] AS site,
             (($(lu ur 5007 9040) - 1) * 5003 + 228) % 9040 + 1 AS rr_user,
             (($(lu g 4014 9040) - 1) * 5003 + 228) % 9040 + 1 AS rr_row,
             CASE WHEN $(U g 4015) < 0.13 THEN $(pl g 4016 0.6 "$NP") ELSE 0 END AS sp
      FROM (SELECT g, ur, ts, url, hr, hs, hu,
                   CASE WHEN $(U g 4023) < 0.4 THEN 0 ELSE $(pl g 4029 0.9 "$NREF") END AS rf,
                   CASE WHEN $(U ur 5004) < 0.85
                        THEN (ARRAY[1368,1366,1920,1280,1024,1600,1440,1680,1536,1360,1093,360,320,768,2560,1638])[$(lu ur 5005 16)]
                        ELSE 320 + $(H ur 5006) % 2241 END::int2 AS rw,
                   (ARRAY[768,1080,1024,900,800,864,720,1050])[1 + (hu >> 1) % 8]::int2 AS rh
            FROM (SELECT g,
                         $(pl g 4017 0.58 "$NU") AS ur,
                         $(H g 4018) % (31 * 86400) AS ts,
                         $(pl g 4019 0.9 "$NURL") AS url,
                         $(H g 4100) AS hr,
                         $(H g 4101) AS hs
                  FROM (SELECT generate_series($lo::int8, $hi::int8) AS g) s
                  OFFSET 0) a0
            CROSS JOIN LATERAL (SELECT $(H a0.ur 5100) AS hu) u
            OFFSET 0) a
      OFFSET 0) b;
SQL
}

hits_load() {
  hits_setup
  "${PSQL[@]}" <<SQL
DROP TABLE IF EXISTS hits;
$(sed -n '/^CREATE TABLE hits/,/^);/p' "$(dirname "$0")/hits.sql" | sed "s/^CREATE TABLE hits/CREATE $PERSIST TABLE hits/; s/^);/) $TABLE_OPTS;/")
COMMENT ON TABLE hits IS 'ClickBench hits, synthetic (bench/gen/load.sh hits $PARAMS)';
SQL
  run_chunks "$N" hits_chunk
  TABLES=(hits)
}

hits_after_vacuum() {
  if [ "$PK" = 1 ]; then
    "${PSQL[@]}" -c "SET max_parallel_maintenance_workers = $((JOBS > 8 ? 8 : JOBS)); ALTER TABLE hits ADD PRIMARY KEY (CounterID, EventDate, UserID, EventTime, WatchID)"
  fi
}

########################################################################
# ints: the table of the PG-Strom comparison (bench/queries/ints.sql)
# t_ints(id1 int4 -- 100 values, id3 int4 -- N/100 values, v1 int4 1..5,
#        v3 float8 -- a multiple of 1e-6 in [0, 100]); at N=1e8, 1M groups
# of id3 and a ~5 GB heap.
########################################################################
ints_chunk() {
  cat <<SQL
INSERT INTO t_ints
SELECT $(R g 3001 100)::int4, $(R g 3002 $((N / 100 > 0 ? N / 100 : 1)))::int4, $(R g 3003 5)::int4,
       ($(H g 3004) % 100000001)::float8 / 1000000
  FROM generate_series($1::int8, $2::int8) g;
SQL
}

ints_load() {
  PARAMS="N=$N"
  "${PSQL[@]}" <<SQL
DROP TABLE IF EXISTS t_ints;
CREATE $PERSIST TABLE t_ints (id1 int4, id3 int4, v1 int4, v3 float8) $TABLE_OPTS;
COMMENT ON TABLE t_ints IS 'PG-Strom comparison table (bench/gen/load.sh ints $PARAMS)';
SQL
  run_chunks "$N" ints_chunk
  TABLES=(t_ints)
}

########################################################################
"${SUITE}_load"
T_LOAD1=$(now)

# The tables with storage: each table, or a partitioned one's partitions.
TABLE_LIST="'{$(IFS=,; echo "${TABLES[*]}")}'::text[]"
LEAVES="SELECT t, coalesce(l.relid, t::regclass) AS leaf
  FROM unnest($TABLE_LIST) t
  LEFT JOIN LATERAL pg_partition_tree(t::regclass) l ON l.isleaf"
# VACUUM each table (partition) in its own session (VACUUM of one table is
# serial); a partitioned table's own statistics come from its ANALYZE.
vac=()
while read -r leaf; do vac+=("VACUUM (ANALYZE) $leaf;"); done < <(
  "${PSQL[@]}" -tAc "SELECT leaf FROM ($LEAVES) s")
run_parallel "${vac[@]}"
for t in "${TABLES[@]}"; do
  [ "$("${PSQL[@]}" -tAc "SELECT relkind FROM pg_class WHERE oid = '$t'::regclass")" = p ] &&
    "${PSQL[@]}" -c "ANALYZE $t"
done
# A page that another backend has pinned at that moment (e.g. while writing
# it out to free a buffer) is skipped by VACUUM without setting its
# visibility-map bit: vacuum again (it scans only those pages) until every
# page is all-visible.
for _ in 1 2 3; do
  again=$("${PSQL[@]}" -tAc "SELECT string_agg(format('VACUUM %s;', c.oid::regclass), ' ')
    FROM ($LEAVES) s JOIN pg_class c ON c.oid = s.leaf WHERE c.relallvisible < c.relpages")
  [ -n "$again" ] || break
  "${PSQL[@]}" <<<"$again"   # (one -c would be one transaction)
done
T_VAC1=$(now)
LOAD_S=$(secs "$T_LOAD0" "$T_LOAD1"); VAC_S=$(secs "$T_LOAD1" "$T_VAC1")
# keys and indexes (tpch KEYS=1, hits PK=1), timed apart
if declare -F "${SUITE}_after_vacuum" >/dev/null; then
  "${SUITE}_after_vacuum"
  echo "keys_s=$(secs "$T_VAC1" "$(now)")"
fi

# Exact row counts (reltuples after VACUUM (ANALYZE) is ANALYZE's estimate).
declare -A ROWS
for t in "${TABLES[@]}"; do
  ROWS[$t]=$("${PSQL[@]}" -tAc "SET max_parallel_workers_per_gather = $((JOBS > 8 ? 8 : JOBS)); SELECT count(*) FROM $t")
done
ROWVALUES=""
for t in "${TABLES[@]}"; do ROWVALUES+="${ROWVALUES:+,}('$t', ${ROWS[$t]})"; done

# Record what was loaded, for the runner (bench_gen: one row per table).
"${PSQL[@]}" <<SQL
CREATE TABLE IF NOT EXISTS bench_gen (
  tbl text PRIMARY KEY, suite text, params text, rows int8, heap_bytes int8,
  load_s numeric, vacuum_s numeric, jobs int, logged bool, loaded_at timestamptz);
DELETE FROM bench_gen WHERE tbl = ANY ('{$(IFS=,; echo "${TABLES[*]}")}');
INSERT INTO bench_gen
SELECT t, '$SUITE', '$PARAMS', r,
       (SELECT sum(pg_relation_size(leaf)) FROM ($LEAVES) s WHERE s.t = v.t),
       $LOAD_S, $VAC_S, $JOBS, $([ "$LOGGED" = 1 ] && echo true || echo false), now()
FROM (VALUES $ROWVALUES) v(t, r);
SQL

echo "suite=$SUITE $PARAMS jobs=$JOBS $([ "$LOGGED" = 1 ] && echo logged || echo unlogged) db=$PGDATABASE"
"${PSQL[@]}" -P footer=off <<SQL
SELECT tbl AS table, rows,
       pg_size_pretty(heap_bytes) AS heap, heap_bytes,
       (SELECT bool_and(c.relallvisible = c.relpages) FROM ($LEAVES) s
          JOIN pg_class c ON c.oid = s.leaf WHERE s.t = b.tbl) AS all_visible
FROM bench_gen b
WHERE tbl = ANY ($TABLE_LIST) ORDER BY tbl;
SQL
echo "load_s=$LOAD_S vacuum_s=$VAC_S total_s=$(secs "$T_LOAD0" "$T_VAC1")"
