package main

import (
	"errors"
	"net"

	"github.com/vishvananda/netlink"
)

// netlinkRoutes is the node's main routing table (the DaemonSet runs in the
// node's network namespace with NET_ADMIN).
type netlinkRoutes struct{}

func (netlinkRoutes) ensure(r route) (bool, error) {
	dst := &net.IPNet{IP: r.dst.Addr().AsSlice(), Mask: net.CIDRMask(r.dst.Bits(), r.dst.Addr().BitLen())}
	gw := net.IP(r.via.AsSlice())
	family := netlink.FAMILY_V4
	if r.dst.Addr().Is6() {
		family = netlink.FAMILY_V6
	}
	existing, err := netlink.RouteListFiltered(family, &netlink.Route{Dst: dst}, netlink.RT_FILTER_DST)
	if err != nil && !errors.Is(err, netlink.ErrDumpInterrupted) {
		return false, err
	}
	for _, e := range existing {
		if e.Gw.Equal(gw) {
			return false, nil
		}
	}
	return true, netlink.RouteReplace(&netlink.Route{Dst: dst, Gw: gw})
}
