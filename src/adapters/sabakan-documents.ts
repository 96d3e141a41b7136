// The documents kintsugi sends to sabakan. A test validates each against sabakan's schema, so drift fails.

/** The machines the sabakan trigger looks at, with what it needs of them. */
export const SEARCH_MACHINES = /* GraphQL */ `
  query SearchMachines($having: MachineParams, $notHaving: MachineParams) {
    searchMachines(having: $having, notHaving: $notHaving) {
      spec {
        serial
        labels { name value }
        rack
        indexInRack
        role
        ipv4
        registerDate
        retireDate
        bmc { bmcType ipv4 }
      }
      status { state timestamp duration }
    }
  }
`;

/** Every machine, unfiltered, with as little of each as sabakan answers: how large the fleet is (asked at start). */
export const COUNT_MACHINES = /* GraphQL */ `
  query CountMachines {
    searchMachines {
      spec { serial }
    }
  }
`;

export const SABAKAN_DOCUMENTS = { SEARCH_MACHINES, COUNT_MACHINES } as const;
