# Sourced by Tests/HIL/run and Tests/System/run: boots a qemu VM and reads its results.
#
# Set VM_KERNEL, VM_INITRD, VM_MEMORY (MB), VM_APPEND (kernel command line), VM_LOG (the serial console's
# file) and VM_BOOTED (a pattern the console prints once the guest is up), then `vm_run NAME` and
# `vm_report NAME`. VM_ARCH=aarch64 boots `qemu-system-aarch64 -M virt` through UEFI (QEMU_EFI.fd runs the
# kernel's EFI stub) under TCG alone; VM_BOOT_LIMIT and VM_LIMIT (seconds under TCG to come up, and in
# all; 120 and 900) give a slower guest its time. The guest prints "HIL: PASS|FAIL|SKIP …" lines and "HIL: DONE" at the end; lines may
# carry a journal prefix ("[ 57.6] systemtest.sh[191]: HIL: …").

# Boots the VM in the background; gives up after $3 seconds without VM_BOOTED (a stalled accelerator) or
# $4 seconds in all. Returns 0 when the guest came up.
vm_boot() {
    local accel=$1 cpu=$2 boot_limit=$3 limit=$4
    local machine=(qemu-system-x86_64)
    [[ ${VM_ARCH:-x86_64} == aarch64 ]] &&
        machine=(qemu-system-aarch64 -M virt -bios /usr/share/qemu-efi-aarch64/QEMU_EFI.fd)
    "${machine[@]}" -accel "$accel" -cpu "$cpu" -m "$VM_MEMORY" -smp 2 -nographic -no-reboot \
        -kernel "$VM_KERNEL" -initrd "$VM_INITRD" -append "$VM_APPEND" > "$VM_LOG" 2>&1 &
    local vm=$! waited=0 booted=1
    while kill -0 "$vm" 2>/dev/null; do
        grep -q "$VM_BOOTED" "$VM_LOG" && booted=0
        # Done, or stalled: power-off does not always end qemu, so the VM is stopped from here.
        if grep -q "HIL: DONE" "$VM_LOG" || (( (booted != 0 && waited >= boot_limit) || waited >= limit )); then
            sleep 2
            kill "$vm" 2>/dev/null
            break
        fi
        sleep 1
        waited=$((waited + 1))
    done
    wait "$vm" 2>/dev/null || true
    grep -q "$VM_BOOTED" "$VM_LOG"
}

# Whether to try KVM: not where an earlier VM of this test run found it stalls (Tests/run names a file in
# SNAPSTATION_KVM_STALLS, which the first VM to find it writes; each VM would lose its 20-30 s otherwise).
kvm_worth_trying() {
    [[ ${VM_ARCH:-x86_64} == x86_64 && -r /dev/kvm && -w /dev/kvm ]] || return 1
    if [[ -n ${SNAPSTATION_KVM_STALLS:-} && -s $SNAPSTATION_KVM_STALLS ]]; then
        echo "   KVM not tried: $(cat "$SNAPSTATION_KVM_STALLS")"
        return 1
    fi
}
kvm_stalls() {  # WHAT: notes that KVM stalled, for the next VM of this run
    if [[ -n ${SNAPSTATION_KVM_STALLS:-} ]]; then echo "it stalled a stock guest in $1 earlier in this run" > "$SNAPSTATION_KVM_STALLS"; fi
}

# KVM first, given 30 s to come up (on some hosts /dev/kvm stalls a stock guest), then TCG. Sets VM_ACCEL.
vm_run() {
    VM_ACCEL=tcg
    if kvm_worth_trying; then
        echo "== $1: booting under KVM"
        if vm_boot kvm host 30 900; then VM_ACCEL=kvm; else
            echo "   KVM did not boot a stock guest here within 30 s ($(tr -d '\r' < "$VM_LOG" | grep -v '^$' | tail -n 1)); using TCG"
            kvm_stalls "$1"
        fi
    fi
    if [[ $VM_ACCEL == tcg ]]; then
        echo "== $1: booting under TCG (-accel tcg -cpu max)"
        local started
        started=$(date +%s)
        vm_boot tcg max "${VM_BOOT_LIMIT:-120}" "${VM_LIMIT:-900}" || true
        echo "   $(( $(date +%s) - started )) s in the VM"
    fi
}

# Prints the results and the scenarios' quoted logs; returns 0 only when the VM finished, nothing
# failed and something passed.
vm_report() {
    tr -d '\r' < "$VM_LOG" | grep -E "HIL:|^  \|" | sed 's/^.*HIL:/HIL:/' || true
    local passed failed skipped
    passed=$(grep -c "HIL: PASS" "$VM_LOG" || true)
    failed=$(grep -c "HIL: FAIL" "$VM_LOG" || true)
    skipped=$(grep -c "HIL: SKIP" "$VM_LOG" || true)
    if ! grep -q "HIL: DONE" "$VM_LOG"; then
        echo "$1: the VM did not finish (accelerator $VM_ACCEL); the console's end:"
        tr -d '\r' < "$VM_LOG" | tail -n 40
        return 1
    fi
    echo "$1 ($VM_ACCEL): $passed passed, $failed failed, $skipped skipped"
    [[ $failed -eq 0 && $passed -gt 0 ]]
}
